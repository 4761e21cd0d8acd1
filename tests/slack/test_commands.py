"""``/errkb`` and every subcommand, the message shortcut; all replies valid Block Kit."""

from __future__ import annotations

import json
from datetime import date

from bot.store import slack_repo
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import ACK_S, CHANNEL, EN_USER, PASTE, ZH_USER, Bot, wait_for_unknown
from tests.slack.fake_slack import Call


def _respond(bot: Bot, text: str, user: str = EN_USER) -> Call:
    response = bot.send.command(text, user=user)
    assert response.status == 200 and response.seconds < ACK_S
    calls = bot.fake.wait_for("response_url")
    assert len(calls) == 1, calls
    assert calls[0].params["response_type"] == "ephemeral"
    assert_valid_message(calls[0].params)
    return calls[0]


def test_paste_is_triaged_privately_with_a_share_button(bot: Bot) -> None:
    call = _respond(bot, PASTE)
    text = json.dumps(call.params["blocks"])
    assert "errkbtest/frobnicator-overheat" in text and "errkb.share" in text
    assert bot.fake.of("chat.postMessage") == []


def test_search(bot: Bot) -> None:
    call = _respond(bot, "search frobnicator temperature")
    assert "errkbtest/frobnicator-overheat" in json.dumps(call.params["blocks"])


def test_show(bot: Bot) -> None:
    call = _respond(bot, "show errkbtest/widget-meltdown")
    text = json.dumps(call.params["blocks"])
    assert "Replace the widget housing" in text and "4 years ago" in text


def test_show_unknown_id_is_a_translated_error(bot: Bot) -> None:
    call = _respond(bot, "show errkbtest/no-such-record", user=ZH_USER)
    assert "没有 ID 为" in call.params["text"]


def test_graph_sends_the_neighbourhood_png_privately(bot: Bot) -> None:
    bot.send.command("graph errkbtest/frobnicator-overheat")
    complete = bot.fake.wait_for("files.completeUploadExternal", timeout=20)
    assert len(complete) == 1 and complete[0].params["channel_id"] == "DENGLISH", (
        "to the person, not the channel"
    )
    upload = bot.fake.of("upload")[0]
    assert upload.params["head"].startswith(b"\x89PNG") and upload.params["bytes"] > 1000
    [told] = bot.fake.wait_for("response_url")
    assert told.params["response_type"] == "ephemeral" and "direct message" in told.params["text"]


def test_stale_for_an_unknown_domain_names_the_real_ones(bot: Bot) -> None:
    call = _respond(bot, "stale nosuchdomain")
    assert "no domain “nosuchdomain”" in call.params["text"] and "python" in call.params["text"]


def test_stale_lists_records_past_the_threshold(bot: Bot) -> None:
    call = _respond(bot, "stale")
    text = json.dumps(call.params["blocks"])
    assert "errkbtest/widget-meltdown" in text and "errkbtest/frobnicator-underheat" in text
    assert "errkbtest/coolant-pump-stalled" not in text  # confirmed 12 days ago


def test_stale_by_domain(bot: Bot) -> None:
    call = _respond(bot, "stale llm")
    text = json.dumps(call.params["blocks"])
    assert "errkbtest/" not in text and "llm/" in text


def test_unknown_lists_the_most_common_unknown_errors(bot: Bot) -> None:
    bot.send.message("RuntimeError: the flux capacitor is misaligned by 3 degrees")
    wait_for_unknown(bot, "flux capacitor")
    call = _respond(bot, "unknown")
    text = json.dumps(call.params["blocks"])
    assert "flux capacitor" in text and "errkb.add_record" in text


def test_lang_is_stored_and_used(bot: Bot) -> None:
    call = _respond(bot, "lang zh")
    assert "中文" in call.params["text"]
    with bot.store.transaction() as session:
        assert slack_repo.chosen_locale(session, user_id=EN_USER) == "zh"
    bot.fake.reset()
    assert "冷却回路" in json.dumps(_respond(bot, PASTE).params["blocks"], ensure_ascii=False)
    bot.fake.reset()
    assert "automatically" in _respond(bot, "lang auto").params["text"]
    bot.fake.reset()
    assert "Usage" in _respond(bot, "lang klingon").params["text"]


def test_help_and_empty_command(bot: Bot) -> None:
    assert "/errkb search" in json.dumps(_respond(bot, "help").params["blocks"])
    bot.fake.reset()
    assert "/errkb search" in json.dumps(_respond(bot, "").params["blocks"])


def test_message_shortcut_answers_in_the_thread(bot: Bot) -> None:
    response = bot.send.interactive(
        {
            "type": "message_action",
            "callback_id": "errkb_lookup",
            "trigger_id": "t1",
            "team": {"id": "T1"},
            "user": {"id": EN_USER},
            "channel": {"id": CHANNEL, "name": "errors"},
            "response_url": bot.fake.response_url("sc1"),
            "message_ts": "1722500005.000002",
            "message": {
                "type": "message",
                "user": "UOTHER",
                "text": PASTE,
                "ts": "1722500005.000002",
                "thread_ts": "1722500005.000001",
            },
        }
    )
    assert response.status == 200
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1 and posts[0].params["thread_ts"] == "1722500005.000001"
    assert_valid_message(posts[0].params)


def test_freshness_follows_the_injected_clock(bot: Bot) -> None:
    bot.clock.value = bot.clock.value.replace(year=2024, month=6, day=1)
    assert date(2024, 6, 1) == bot.clock.now().date()
    call = _respond(bot, "show errkbtest/frobnicator-overheat")
    assert "Last confirmed today" in json.dumps(call.params["blocks"])
