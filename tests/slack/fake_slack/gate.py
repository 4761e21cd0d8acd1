"""What every Web API call passes before its method answers, in Slack's order: an outage or
a broken method, a channel's rate limit, a failure a test queued, an unknown method, the
token (``not_authed``, ``invalid_auth``, ``token_expired``, a refusal, ``not_in_channel``)
and the method's scopes (``missing_scope`` with ``needed`` and ``provided``). Then the
method's family answers it (``METHODS``); a method with a row but no family answers
``{"ok": true}``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack import files, messages, oauth, people, surfaces
from tests.slack.fake_slack.catalog import methods_table, needed_scopes
from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack

#: How one method answers once the call passed the gate: (stand-in, params, channel, the
#: grant of the call's token if it has one) → the answer.
Method = Callable[["FakeSlack", dict[str, Any], str, Grant | None], Reply]

METHODS: dict[str, Method] = {
    **oauth.METHODS,
    **messages.METHODS,
    **people.METHODS,
    **files.METHODS,
    **surfaces.METHODS,
}

#: Methods whose calls a channel's rate limit holds back.
RATE_LIMITED = frozenset({"chat.postMessage"})
#: Methods that answer ``not_in_channel`` in a channel errkb is not a member of.
MEMBERS_ONLY = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral"})


def answer(fake: FakeSlack, method: str, params: dict[str, Any], token: str | None) -> Reply:
    """Slack's answer to one call of ``method`` with ``params`` and ``token``."""
    channel = str(params.get("channel", ""))
    with fake.lock:
        queue = fake.failures.get(method)
        failure = queue.pop(0) if queue else None
        down = fake.down
        broken = fake.broken.get(method)
        limit = fake.limited.get(channel) if method in RATE_LIMITED else None
    if down is not None or broken is not None:
        return down or broken or 500, {"ok": False, "error": "service_unavailable"}, {}
    if limit is not None and time.monotonic() < limit[0]:
        return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(limit[1])}
    if failure is not None:
        status, error = failure
        if status == 429:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "0"}
        if status != 200:
            return status, {"ok": False, "error": "internal_error"}, {}
        return 200, {"ok": False, "error": error}, {}
    if method not in methods_table()["methods"]:
        return 200, {"ok": False, "error": "unknown_method", "req_method": method}, {}
    if method == "oauth.v2.access":
        return oauth.exchange(fake, params)
    granted = next((g for g in fake.grants.values() if g.token == token), None)
    refused = refusal_of(fake, method, token, channel, granted)
    if refused is not None:
        return 200, refused, {}
    provided = granted.scopes if granted is not None else fake.scopes
    needed = needed_scopes(method, fake.kind(channel) if channel else None)
    if needed and not set(needed) & set(provided):
        missing = {
            "ok": False,
            "error": "missing_scope",
            "needed": ",".join(needed),
            "provided": ",".join(provided),
        }
        return 200, missing, {}
    family = METHODS.get(method, answer_ok)
    status, body, headers = family(fake, params, channel, granted)
    return status, body, {"X-OAuth-Scopes": ",".join(provided), **headers}


def answer_ok(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    """A method with a row in ``slack_methods.yaml`` but nothing to say: ``{"ok": true}``."""
    return 200, {"ok": True}, {}


def refusal_of(
    fake: FakeSlack, method: str, token: str | None, channel: str, granted: Grant | None
) -> dict[str, Any] | None:
    """Slack's error for this call's token or conversation, if it has one."""
    if not token:
        return {"ok": False, "error": "not_authed"}
    app_level = methods_table()["methods"].get(method, {}).get("token") == "app"
    if app_level != token.startswith("xapp-"):
        return {"ok": False, "error": "not_allowed_token_type"}
    # a custom step completes with the token its function_executed event carried (xwfp-)
    step = method.startswith("functions.") and token.startswith("xwfp-")
    unknown = granted is None and fake.token is not None and token != fake.token
    if unknown and not app_level and not step:
        return {"ok": False, "error": "invalid_auth"}
    with fake.lock:
        if token in fake.retired:
            return {"ok": False, "error": "token_expired"}
        refusal = next((r for r in fake.refusals if r.matches(method, token, channel)), None)
        if refusal is not None and refusal.times is not None:
            refusal.times -= 1
    if refusal is not None:
        return {"ok": False, "error": refusal.error}
    if method in MEMBERS_ONLY and channel in fake.not_in:
        return {"ok": False, "error": "not_in_channel"}
    return None


def may_download(fake: FakeSlack, token: str | None) -> bool:
    """A file's ``url_private`` is read with a token Slack accepts that has files:read."""
    granted = next((g for g in fake.grants.values() if g.token == token), None)
    if refusal_of(fake, "files.download", token, "", granted) is not None:
        return False
    provided = granted.scopes if granted is not None else fake.scopes
    return bool(set(methods_table()["downloads"]["scopes"]) & set(provided))
