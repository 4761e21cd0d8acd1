"""Pastes in channels: answered in the thread, once, in the poster's language; noise ignored."""

from __future__ import annotations

import time

from bot.store import slack_repo
from tests.slack.blockkit import assert_valid_message, buttons, read_text
from tests.slack.conftest import ACK_S, CHANNEL, PASTE, ZH_USER, Bot


def test_a_paste_is_answered_in_its_thread_with_the_fix_on_the_first_screen(bot: Bot) -> None:
    response, ts = bot.send.message(PASTE)
    assert response.status == 200
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1
    post = posts[0].params
    assert post["channel"] == CHANNEL and post["thread_ts"] == ts
    # the notification says the cause and the fix in one line
    assert post["text"].startswith("The frobnicator runs without its coolant loop primed")
    assert "Fix: Prime the coolant loop" in post["text"]
    blocks = post["blocks"]
    text = read_text(blocks)
    assert len(blocks) <= 5 and len(text) <= 700, "the first screen is the answer, nothing more"
    assert "temperature 512 exceeded limit 300" in read_text(blocks[:1]), (
        "the header quotes the paste"
    )
    assert "451" not in text, "not the record's own example numbers"
    assert "*Fix:* Prime the coolant loop before starting" in text and "1 year ago" in text
    assert any(
        b["type"] == "rich_text" and "frobctl coolant prime --wait" in str(b) for b in blocks
    )
    controls = buttons(blocks)
    assert {
        "errkb.vote.fixed",
        "errkb.vote.failed",
        "errkb.not_this",
        "errkb.more",
        "errkb.remove",
    } <= set(controls)
    assert all(b.get("accessibility_label") for b in controls.values())
    assert posts[0].headers["Authorization"] == "Bearer xoxb-1111-2222-secretbottoken"
    assert_valid_message(post)


def test_a_chinese_user_gets_a_chinese_answer(bot: Bot) -> None:
    bot.send.message(PASTE, user=ZH_USER)
    post = bot.fake.wait_for("chat.postMessage")[0].params
    text = str(post["blocks"])
    assert "冷却回路" in text and "1年前" in text
    assert_valid_message(post)


def test_retries_and_duplicate_event_ids_answer_exactly_once(bot: Bot) -> None:
    ts = "1722500000.777777"
    event = {
        "type": "message",
        "channel": CHANNEL,
        "user": "UENGLISH",
        "text": PASTE,
        "ts": ts,
        "client_msg_id": "cm-dup",
    }
    statuses = [bot.send.event(event, event_id="EvDUP1").status]
    statuses += [bot.send.event(event, event_id="EvDUP1", retry=n).status for n in (1, 2, 3)]
    statuses.append(bot.send.event(event, event_id="EvDUP2").status)  # same message, new event id
    assert statuses == [200] * 5
    bot.fake.wait_for(
        "chat.postMessage", 2, timeout=1.5
    )  # give a second answer every chance to appear
    assert len(bot.fake.of("chat.postMessage")) == 1


def test_two_errors_in_one_paste_are_answered_cause_first_and_both_reachable(bot: Bot) -> None:
    """Asked, so that each error is answered at the ask point: unasked, the error the paste
    does not end in is less sure beside a better-answered one (its margin is the paste's),
    and whether it reaches the volunteer point is the fitted calibration's call."""
    paste = PASTE + "\nCoolantPumpStalledError: coolant pump 3 reports zero flow for 30 seconds"
    ts = "1722500000.424242"
    mention = {"type": "app_mention", "channel": CHANNEL, "user": "UENGLISH", "ts": ts}
    bot.send.event({**mention, "text": f"<@UBOT> {paste}", "client_msg_id": "cm-two"})
    post = bot.fake.wait_for("chat.postMessage")[0].params
    text = read_text(post["blocks"])
    assert "errkbtest/coolant-pump-stalled" in text and "errkbtest/frobnicator-overheat" not in text
    assert "Error 1 of 2 · likely the cause: fix it first" in text
    assert_valid_message(post)
    following = buttons(post["blocks"])["errkb.page"]
    [(channel, message_ts)] = [k for k, m in bot.fake.messages.items() if m.get("thread_ts") == ts]
    bot.send.click("errkb.page", following["value"], message_ts=message_ts)
    [update] = bot.fake.wait_for("chat.update")
    assert update.params["ts"] == message_ts
    shown = read_text(update.params["blocks"])
    assert "errkbtest/frobnicator-overheat" in shown and "Error 2 of 2" in shown
    assert_valid_message(update.params)


def test_html_escaped_code_fenced_paste_is_matched(bot: Bot) -> None:
    escaped = "```" + PASTE.replace('"', "&quot;").replace("<", "&lt;") + "```"
    bot.send.message("can anyone help? &gt; this keeps happening\n" + escaped)
    assert len(bot.fake.wait_for("chat.postMessage")) == 1


def test_bots_edits_deletions_and_chit_chat_are_ignored(bot: Bot) -> None:
    """Another app's message where alerts are off, an edit that brought no new error, ..."""
    # the metrics registry lives as long as the test session: count this test's declines only
    alerts_off = bot.metrics.value("errkb_declines_total", reason="alerts_off")
    bot.send.message(PASTE, bot_id="B999", subtype="bot_message")
    bot.send.message(PASTE, user="UBOT")  # errkb's own message
    bot.send.event(
        {
            "type": "message",
            "subtype": "message_changed",
            "channel": CHANNEL,
            "ts": "1.1",
            "message": {"text": PASTE + "\n(edited)", "user": "UENGLISH", "ts": "1.0"},
            "previous_message": {"text": PASTE, "user": "UENGLISH", "ts": "1.0"},
        }
    )
    bot.send.event(
        {
            "type": "message",
            "subtype": "message_deleted",
            "channel": CHANNEL,
            "ts": "1.2",
            "deleted_ts": "1.0",
        }
    )
    bot.send.message("anyone up for lunch at noon?")
    bot.send.message(
        "RuntimeError: the flux capacitor is misaligned by 3 degrees"
    )  # unknown: silent
    assert bot.fake.wait_for("chat.postMessage", timeout=1.0) == []
    assert (
        bot.metrics.value("errkb_declines_total", reason="ignored") >= 1
    )  # (Bolt drops its own first)
    assert bot.metrics.value("errkb_declines_total", reason="alerts_off") == alerts_off + 1


def test_unknown_paste_in_channel_is_kept_silently_for_maintainers(bot: Bot) -> None:
    for _ in range(2):
        bot.send.message("RuntimeError: the flux capacitor is misaligned by 3 degrees")
    rows = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (
        rows and rows[0].count == 2 and len(rows[0].permalinks) == 2
    ):
        with bot.store.transaction() as session:
            rows = slack_repo.unknown_errors(session)
        time.sleep(0.01)
    assert rows and rows[0].count == 2 and len(rows[0].permalinks) == 2
    assert "<n>" in rows[0].template or "<ver>" in rows[0].template
    assert bot.fake.of("chat.postMessage") == []


def test_mention_without_a_confident_match_shows_uncertain_candidates(bot: Bot) -> None:
    weak = "<@UBOT> frobnicate.errors.FrobnicatorError: core"  # the type, too little of its message
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": "UENGLISH",
            "ts": "1722500001.000001",
            "text": weak,
            "client_msg_id": "cm-m1",
        }
    )
    # Slack also sends the message event for the same message: it must not answer a second time.
    bot.send.message(weak, ts="1722500001.000001")
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1
    text = str(posts[0].params["blocks"])
    assert "Not sure" in text and "errkbtest/frobnicator-overheat" in text
    # only candidates above the floor: not the records a few percent likely
    assert "errkbtest/frobnicator-underheat" not in text and "errkbtest/widget-meltdown" not in text
    assert posts[0].params["thread_ts"] == "1722500001.000001"
    assert_valid_message(posts[0].params)


def test_mention_of_something_unknown_says_nothing_is_known(bot: Bot) -> None:
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": "UENGLISH",
            "ts": "1722500002.000001",
            "thread_ts": "1722500000.000009",
            "client_msg_id": "cm-m2",
            "text": "<@UBOT> ZorgleBlorpException: qwzx vrrp ktchk",
        }
    )
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1 and posts[0].params["thread_ts"] == "1722500000.000009"
    assert_valid_message(posts[0].params)
    text = str(posts[0].params["blocks"])
    assert "Nothing in the knowledge base" in text or "Not sure" in text


def test_a_snippet_file_is_read(bot: Bot) -> None:
    bot.fake.files["crash.log"] = PASTE
    bot.send.file_share(bot.fake.url + "/files/crash.log", size=len(PASTE))
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1 and "frobnicator-overheat" in read_text(posts[0].params["blocks"])
    download = bot.fake.of("files.download")[0]
    assert download.headers["Authorization"].startswith("Bearer xoxb-")


def test_a_paste_over_the_limit_is_acked_fast_and_read_with_a_note(bot: Bot) -> None:
    # (a request body over 1 MiB is refused before it reaches errkb: tests/slack/test_gate.py)
    huge = "INFO all good here, nothing to see\n" * 20_000 + PASTE
    assert 100_000 < len(huge) < 1_000_000
    response, _ = bot.send.message(PASTE + "\n" + huge)
    assert response.status == 200 and response.seconds < ACK_S
    posts = bot.fake.wait_for("chat.postMessage", timeout=20)
    assert len(posts) == 1
    assert "skipped the rest" in str(posts[0].params["blocks"])


def test_slack_rate_limits_are_retried(bot: Bot) -> None:
    before = bot.metrics.value("errkb_job_retries_total", kind="paste", reason="ratelimited")
    bot.fake.fail_next("chat.postMessage", 429)
    bot.send.message(PASTE)
    posts = bot.fake.wait_for("chat.postMessage", 2, timeout=10)
    assert len(posts) == 2  # the 429, then the retry after Retry-After
    assert (
        bot.metrics.value("errkb_job_retries_total", kind="paste", reason="ratelimited") - before
        == 1
    )
