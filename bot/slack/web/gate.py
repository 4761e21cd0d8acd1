"""The gate in front of Bolt: a request to ``POST /slack/events`` is checked before it is parsed.

Bolt parses a body (JSON or form) before it verifies the signature, so an
unsigned request could make it read, decode and parse anything. The gate
reads at most :data:`MAX_BODY` bytes, verifies the Slack signature with
slack_sdk's :class:`~slack_sdk.signature.SignatureVerifier`, checks that the
body parses the way Bolt will parse it, and only then hands the request to
Bolt (which verifies it again, as it always does). What it refuses:

- 413: a body over :data:`MAX_BODY` (Slack sends a few kilobytes);
- 401: no signature, a wrong or stale one, a timestamp that is not a number;
- 400: a body that is not UTF-8, a signed body Bolt could not parse, or one that is
  not the shape every payload of its kind has (:mod:`bot.slack.web.shapes`).

Refusals are logged at most once per :data:`LOG_EVERY` seconds, one JSON line
with the counts of refusals since the last line (a flood of forged requests
cannot flood the log); never a traceback, never the body.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt.request.internals import parse_body
from slack_sdk.signature import SignatureVerifier

from bot.slack.web.shapes import malformed
from bot.throttle import LogThrottle

log = logging.getLogger(__name__)

#: The largest request body accepted (Slack's event, command and interaction payloads are far
#: smaller; a message is at most 40,000 characters).
MAX_BODY = 1 << 20
#: Seconds between two log lines about refused requests.
LOG_EVERY = 10.0

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_STATUS = {400: "400 Bad Request", 401: "401 Unauthorized", 413: "413 Content Too Large"}


class RefusalLog:
    """One log line per ``every`` seconds at most, counting the refusals it stands for."""

    def __init__(
        self, *, every: float = LOG_EVERY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._throttle = LogThrottle(every, clock=clock)
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def refused(self, reason: str, path: str) -> None:
        with self._lock:
            self._counts[reason] += 1
            if not self._throttle.due():
                return
            counts = dict(self._counts)
            self._counts = Counter()
        log.warning(
            "refused %d request(s) to %s: %s",
            sum(counts.values()),
            path,
            ", ".join(f"{n} {why}" for why, n in sorted(counts.items())),
            extra={"refused": counts, "path": path},
        )


def _respond(start_response: StartResponse, status: int, message: str) -> list[bytes]:
    body = json.dumps({"ok": False, "error": message}).encode()
    start_response(
        _STATUS[status], [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]


def _read_body(environ: dict[str, Any]) -> bytes | None:
    """The body, or None when it is over :data:`MAX_BODY` (then no more of it is read)."""
    try:
        declared = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > MAX_BODY:
        return None
    stream = environ.get("wsgi.input")
    if stream is None:
        return b""
    body: bytes = stream.read(MAX_BODY + 1)
    return None if len(body) > MAX_BODY else body


def check(
    body: bytes,
    timestamp: str | None,
    signature: str | None,
    content_type: str | None,
    verifier: SignatureVerifier,
) -> tuple[int, str] | None:
    """``(status, reason)`` when the request is refused, None when it may go to Bolt."""
    if not timestamp or not signature:
        return 401, "unsigned"
    if not (timestamp.isascii() and timestamp.isdigit()):
        return 401, "timestamp not a number"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return 400, "body not UTF-8"
    if not verifier.is_valid(body=text, timestamp=timestamp, signature=signature):
        return 401, "bad or stale signature"
    try:
        parsed = parse_body(text, content_type)
    except ValueError:  # JSONDecodeError included
        return 400, "signed body that does not parse"
    if not isinstance(parsed, dict):
        return 400, "signed body that is not an object"
    problem = malformed(parsed)
    return (400, problem) if problem else None


def gate(
    bolt: WsgiApp, signing_secret: str, *, path: str, refusals: RefusalLog | None = None
) -> WsgiApp:
    """``bolt`` behind the checks above, for POST requests to ``path``; others pass through."""
    verifier = SignatureVerifier(signing_secret)
    refused = refusals or RefusalLog()

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("PATH_INFO") != path:
            return bolt(environ, start_response)
        body = _read_body(environ)
        if body is None:
            refused.refused(f"body over {MAX_BODY >> 20} MiB", path)
            return _respond(start_response, 413, "request body too large")
        problem = check(
            body,
            environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP"),
            environ.get("HTTP_X_SLACK_SIGNATURE"),
            environ.get("CONTENT_TYPE"),
            verifier,
        )
        if problem is not None:
            status, reason = problem
            refused.refused(reason, path)
            return _respond(start_response, status, reason)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        return bolt(environ, start_response)

    return app
