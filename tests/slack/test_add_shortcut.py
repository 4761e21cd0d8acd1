"""The "Add to errkb" message shortcut: maintainers get the add-record modal prefilled from the
message; anyone else a private refusal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import re2

from bot.match.regexcheck import re2_options, regex_issue
from bot.render.ids import BlockId, CallbackId, InputId
from bot.render.state import AddState, load_state
from bot.store import repository
from tests.slack.blockkit import assert_valid_view
from tests.slack.conftest import CHANNEL, EN_USER, MAINTAINER, TODAY, Bot, wait_for_unknown

LINE = (
    "flux.errors.CapacitorMisalignedError: flux capacitor misaligned by 3 degrees at 0x7ffd5a3b2c10"
)
MESSAGE = f"""deploy died again :(
```Traceback (most recent call last):
  File "/srv/app/time/travel.py", line 88, in jump
    capacitor.charge(gigawatts=1.21)
{LINE}```"""
RECORD = "python/flux-capacitor-misaligned"


@pytest.fixture
def cleanup(bot: Bot) -> Iterator[None]:
    yield
    with bot.store.transaction() as session:
        repository.delete_record(session, record_id=RECORD, actor="test", now=TODAY)


def _shortcut(bot: Bot, user: str, text: str = MESSAGE, ts: str = "1722500300.000001") -> None:
    n = bot.send.next_id()
    response = bot.send.interactive(
        {
            "type": "message_action",
            "callback_id": CallbackId.ADD_SHORTCUT,
            "trigger_id": f"add{n}-{bot.send.prefix}",
            "team": {"id": "T1"},
            "user": {"id": user},
            "channel": {"id": CHANNEL, "name": "errors"},
            "response_url": bot.fake.response_url(f"add{n}"),
            "message_ts": ts,
            "message": {"type": "message", "user": "UOTHER", "text": text, "ts": ts},
        }
    )
    assert response.status == 200


def _modal(bot: Bot) -> tuple[dict[str, Any], dict[str, str]]:
    [call] = bot.fake.wait_for("views.open")
    view: dict[str, Any] = call.params["view"]
    assert_valid_view(view)
    return view, {b["block_id"]: b["element"].get("initial_value", "") for b in view["blocks"]}


def _submit(bot: Bot, view: dict[str, Any], values: dict[str, str]) -> None:
    filled = {
        **values,
        BlockId.RECORD_ID: RECORD,
        BlockId.ROOT_CAUSE: "The capacitor was knocked out of line.",
    }
    form = {
        "values": {
            b: {InputId.VALUE: {"type": "plain_text_input", "value": v}} for b, v in filled.items()
        }
    }
    response = bot.send.interactive(
        {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": MAINTAINER},
            "api_app_id": "A1",
            "view": {
                "id": f"V{bot.send.next_id()}",
                "type": "modal",
                "callback_id": CallbackId.ADD_RECORD_VIEW,
                "private_metadata": view["private_metadata"],
                "state": form,
            },
        }
    )
    assert response.status == 200 and response.body in (b"", b"{}")


def test_a_maintainer_gets_the_modal_prefilled_from_the_message(bot: Bot, cleanup: None) -> None:
    _shortcut(bot, MAINTAINER)
    view, values = _modal(bot)
    assert values[BlockId.SIGNATURE] == LINE
    regex = values[BlockId.REGEX]
    assert regex_issue(regex) is None and "0x7ffd5a3b2c10" not in regex
    for seen in (LINE, LINE.replace("3 degrees", "11 degrees").replace("7ffd5a3b2c10", "deadbeef")):
        assert re2.compile(regex, re2_options()).search(seen), (regex, seen)
    assert values[BlockId.DOMAIN] == "python" and values[BlockId.RECORD_ID].startswith("python/")
    state = load_state(AddState, view["private_metadata"])
    assert (state.channel, state.thread, state.unknown) == (CHANNEL, "1722500300.000001", None)
    _submit(bot, view, values)  # as prefilled, plus what only a person can say
    [thanks] = bot.fake.wait_for("chat.postEphemeral")
    assert thanks.params["thread_ts"] == "1722500300.000001" and RECORD in thanks.params["text"]
    with bot.store.read() as session:
        record = repository.get_record(session, record_id=RECORD)
    assert record is not None and record.regex == regex


def test_an_error_noted_as_unknown_before_closes_the_loop(bot: Bot, cleanup: None) -> None:
    _, first = bot.send.message(MESSAGE)
    wait_for_unknown(bot, "capacitor misaligned")
    bot.fake.reset()
    _shortcut(bot, MAINTAINER, ts="1722500400.000001")
    view, values = _modal(bot)
    assert load_state(AddState, view["private_metadata"]).unknown is not None
    _submit(bot, view, values)
    [told] = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == first
    )
    assert f"<@{EN_USER}> errkb now knows this error" in json.dumps(told.params["blocks"])


def test_someone_else_is_refused_privately(bot: Bot) -> None:
    _shortcut(bot, EN_USER)
    [refusal] = bot.fake.wait_for("response_url")
    assert refusal.params["response_type"] == "ephemeral"
    assert "only knowledge-base maintainers" in refusal.params["text"]
    assert bot.fake.of("views.open") == []


def test_a_message_without_an_error_still_opens_a_valid_modal(bot: Bot) -> None:
    _shortcut(bot, MAINTAINER, text="lunch at noon? <!channel>")
    view, values = _modal(bot)
    assert values[BlockId.SIGNATURE] == "lunch at noon? <!channel>"
    assert re2.compile(values[BlockId.REGEX], re2_options()).search("lunch at noon? <!channel>")
    assert "<!channel>" not in json.dumps([b["label"] for b in view["blocks"]])
