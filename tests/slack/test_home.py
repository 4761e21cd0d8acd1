"""The App Home tab over HTTP: published when opened, searched, its language chosen, its
buttons working and the tab updated after them; maintainers see their queues."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bot.render.ids import ActionId, BlockId
from bot.store import repository, slack_repo
from bot.store.models import RecordStateRow
from tests.slack.blockkit import assert_valid_view
from tests.slack.conftest import (
    EN_USER,
    MAINTAINER,
    OWNER,
    PASTE,
    TODAY,
    ZH_USER,
    Bot,
    wait_for_unknown,
)


def _open(bot: Bot, user: str, tab: str = "home") -> None:
    event = {
        "type": "app_home_opened",
        "user": user,
        "channel": "D0ERRKB",
        "tab": tab,
        "event_ts": "1.0",
    }
    assert bot.send.event(event).status == 200


def _published(bot: Bot, count: int = 1) -> dict[str, Any]:
    calls = bot.fake.wait_for("views.publish", count)
    assert len(calls) >= count, calls
    view: dict[str, Any] = calls[count - 1].params["view"]
    assert view["type"] == "home"
    assert_valid_view(view)
    return view


def _home(bot: Bot, user: str) -> dict[str, Any]:
    bot.fake.reset()
    _open(bot, user)
    view = _published(bot)
    assert bot.fake.of("views.publish")[0].params["user_id"] == user
    return view


def _click(
    bot: Bot,
    action_id: str,
    user: str,
    *,
    value: str | None = None,
    selected: str | None = None,
    kind: str = "button",
) -> None:
    action: dict[str, Any] = {
        "type": kind,
        "action_id": action_id,
        "block_id": "b",
        "action_ts": str(time.time()),
    }
    if value is not None:
        action["value"] = value
    if selected is not None:
        action["selected_option"] = {
            "text": {"type": "plain_text", "text": selected},
            "value": selected,
        }
    n = bot.send.next_id()
    response = bot.send.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": user, "team_id": "T1"},
            "api_app_id": "A1",
            "trigger_id": f"home{n}-{bot.send.prefix}",
            "container": {"type": "view", "view_id": "VHOME"},
            "view": {"id": "VHOME", "type": "home", "blocks": [], "state": {"values": {}}},
            "actions": [action],
        }
    )
    assert response.status == 200


def _text(view: dict[str, Any]) -> str:
    return json.dumps(view["blocks"], ensure_ascii=False)


def _buttons(view: dict[str, Any], action_id: str) -> list[dict[str, Any]]:
    found = []
    for block in view["blocks"]:
        for element in [block.get("accessory"), *block.get("elements", [])]:
            if isinstance(element, dict) and element.get("action_id") == action_id:
                found.append(element)
    return found


def test_opening_the_home_tab_publishes_search_language_and_recent_answers(bot: Bot) -> None:
    view = _home(bot, EN_USER)
    search = next(b for b in view["blocks"] if b.get("block_id") == BlockId.HOME_SEARCH)
    assert search["type"] == "input" and search["dispatch_action"] is True
    assert search["element"]["action_id"] == ActionId.HOME_SEARCH
    language = next(b for b in view["blocks"] if b.get("block_id") == BlockId.HOME_LANG)
    assert language["accessory"]["initial_option"]["value"] == "auto"
    assert "None yet" in _text(view) and "records · read in English 100 %" in _text(view)
    assert "For maintainers" not in _text(view) and not _buttons(view, ActionId.DIGEST_CONFIRM)


def test_the_messages_tab_publishes_nothing(bot: Bot) -> None:
    _open(bot, EN_USER, tab="messages")
    assert bot.fake.wait_for("views.publish", timeout=0.5) == []


def test_recent_answers_are_the_users_own_newest_first(bot: Bot) -> None:
    bot.send.message(PASTE)
    bot.fake.wait_for("chat.postMessage")
    bot.clock.value = TODAY.replace(day=3)
    bot.send.command("show errkbtest/widget-meltdown")  # a record view is not an answer
    bot.send.command("WidgetMeltdownError: widget housing deformed at 612 degrees")
    bot.fake.wait_for("response_url", 2)
    shown = _text(_home(bot, EN_USER))
    assert shown.index("errkbtest/widget-meltdown") < shown.index("errkbtest/frobnicator-overheat")
    assert "<#C0ERRORS>" in shown and "2025-08-03" in shown and "2025-08-01" in shown
    assert "还没有" in _text(_home(bot, ZH_USER))


def test_searching_in_the_home_tab_shows_the_results_there(bot: Bot) -> None:
    _click(
        bot, ActionId.HOME_SEARCH, EN_USER, value="frobnicator temperature", kind="plain_text_input"
    )
    view = _published(bot)
    shown = _text(view)
    assert (
        "Records matching “frobnicator temperature”" in shown
        and "errkbtest/frobnicator-overheat" in shown
    )
    search = next(b for b in view["blocks"] if b.get("block_id") == BlockId.HOME_SEARCH)
    assert search["element"]["initial_value"] == "frobnicator temperature"
    show = _buttons(view, ActionId.SHOW_RECORD)[0]
    bot.fake.reset()
    _click(bot, ActionId.SHOW_RECORD, EN_USER, value=show["value"])
    [dm] = bot.fake.wait_for("chat.postMessage")  # from the Home tab: in errkb's Messages tab
    assert dm.params["channel"] == EN_USER and "errkbtest/frobnicator" in json.dumps(
        dm.params["blocks"]
    )
    assert _published(bot)  # and the tab is published again


def test_choosing_a_language_in_the_home_tab_stores_it_like_errkb_lang(bot: Bot) -> None:
    _click(bot, ActionId.HOME_LANG, EN_USER, selected="zh", kind="static_select")
    view = _published(bot)
    with bot.store.read() as session:
        assert slack_repo.chosen_locale(session, user_id=EN_USER) == "zh"
    assert "搜索知识库" in _text(view)
    language = next(b for b in view["blocks"] if b.get("block_id") == BlockId.HOME_LANG)
    assert language["accessory"]["initial_option"]["value"] == "zh"
    bot.fake.reset()
    _click(bot, ActionId.HOME_LANG, EN_USER, selected="auto", kind="static_select")
    assert "Search the knowledge base" in _text(_published(bot))
    with bot.store.read() as session:
        assert slack_repo.chosen_locale(session, user_id=EN_USER) is None


def test_maintainers_see_the_unknown_queue_stale_records_and_figures(bot: Bot) -> None:
    bot.send.message("RuntimeError: the flux capacitor is misaligned by 3 degrees")
    wait_for_unknown(bot, "flux capacitor")
    view = _home(bot, MAINTAINER)
    shown = _text(view)
    assert (
        "For maintainers" in shown
        and "flux capacitor" in shown
        and _buttons(view, ActionId.ADD_RECORD)
    )
    assert "errkbtest/widget-meltdown" in shown and _buttons(view, ActionId.DIGEST_CONFIRM)
    assert "unknown errors: *1*" in shown


def test_a_domain_owner_sees_their_domains_stale_records(bot: Bot) -> None:
    view = _home(bot, OWNER)
    assert "For maintainers" not in _text(view)
    assert "errkbtest/widget-meltdown" in _text(view) and _buttons(view, ActionId.DIGEST_SNOOZE)


@pytest.fixture
def restored(bot: Bot) -> Iterator[None]:
    yield
    with bot.store.transaction() as session:  # put the package's records back as they were
        session.query(RecordStateRow).delete()
        repository.import_records(
            session, records=bot.records, on_conflict="upsert", actor="test", now=TODAY
        )


def test_still_valid_in_the_home_tab_confirms_and_updates_the_tab(bot: Bot, restored: None) -> None:
    view = _home(bot, MAINTAINER)
    confirm = next(
        b for b in _buttons(view, ActionId.DIGEST_CONFIRM) if "widget-meltdown" in b["value"]
    )
    bot.fake.reset()
    _click(bot, ActionId.DIGEST_CONFIRM, MAINTAINER, value=confirm["value"])
    after = _published(bot)
    assert "errkbtest/widget-meltdown" not in _text(after)
    with bot.store.read() as session:
        record = repository.get_record(session, record_id="errkbtest/widget-meltdown")
    assert record is not None and record.last_confirmed == TODAY.date()
