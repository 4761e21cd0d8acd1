"""People: ``users.info`` (from ``FakeSlack.users``) and ``usergroups.users.list`` (from
``FakeSlack.groups``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack


def user_info(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    user = fake.users.get(str(params.get("user")))
    if user is None:
        return 200, {"ok": False, "error": "user_not_found"}, {}
    return 200, {"ok": True, "user": {"id": params.get("user"), **user}}, {}


def group_members(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    group = fake.groups.get(str(params.get("usergroup")))
    if group is None:
        return 200, {"ok": False, "error": "no_such_subteam"}, {}
    return 200, {"ok": True, "users": group}, {}


METHODS = {"users.info": user_info, "usergroups.users.list": group_members}
