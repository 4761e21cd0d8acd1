"""Monitoring alerts from other apps, answered in channels that turned ``alerts`` on, once each;
and edited messages answered once when the edit brought an error.

The alerts are the messages Sentry, Datadog, Alertmanager, Grafana, GitHub Actions
and PagerDuty post (``tests/slack/alerts/``: their public message formats, one
known error in each), delivered as Slack delivers them: signed, over HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.alerts import alert_text
from bot.store import channel_repo, slack_repo
from bot.store.models import JobRow
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import CHANNEL, EN_USER, MAINTAINER, PASTE, ZH_USER, Bot, wait_done
from tests.slack.fake_slack import Call

ALERTS = Path(__file__).resolve().parent / "alerts"
VLLM = "llm/vllm-no-available-memory-for-cache-blocks"
FROB = "errkbtest/frobnicator-overheat"
#: Each monitor's fixture and the record its alert is about.
MONITORS = {
    "sentry": VLLM,
    "datadog": VLLM,
    "alertmanager": VLLM,
    "grafana": VLLM,
    "github_actions": FROB,
    "pagerduty": FROB,
}


def fixture(name: str) -> dict[str, Any]:
    found = json.loads((ALERTS / f"{name}.json").read_text(encoding="utf-8"))
    found.pop("_about")
    return found


def alert(
    bot: Bot,
    name: str,
    *,
    ts: str | None = None,
    thread_ts: str | None = None,
    channel: str = CHANNEL,
    **extra: Any,
) -> str:
    """Deliver monitor ``name``'s alert as a ``message`` event; its ts."""
    ts = ts or f"1722500000.{bot.send.next_id():06d}"
    event = {
        **fixture(name),
        "channel": channel,
        "ts": ts,
        "channel_type": "channel",
        "team": "T1",
        **extra,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    assert bot.send.event(event).status == 200
    return ts


def alerts_on(bot: Bot, on: bool = True) -> None:
    with bot.store.transaction() as session:
        channel_repo.set_channel_alerts(
            session, channel=CHANNEL, alerts=on, by=MAINTAINER, at=bot.clock.now()
        )


def posts(bot: Bot, thread_ts: str) -> list[Call]:
    return [c for c in bot.fake.of("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def job_count(bot: Bot) -> int:
    with bot.store.read() as session:
        return int(session.scalar(select(func.count()).select_from(JobRow)) or 0)


def answered_record(call: Call) -> str:
    shown = json.dumps(call.params["blocks"], ensure_ascii=False)
    return next(r for r in (VLLM, FROB) if r in shown)


# -- reading the alerts ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MONITORS))
def test_each_monitors_alert_reads_as_its_error(name: str) -> None:
    text = alert_text(fixture(name))
    assert ("No available memory for the cache blocks" in text) or (
        "FrobnicatorOverheatError" in text
    )
    shown = [line.strip() for line in text.splitlines() if line.strip()]
    assert len(shown) == len(
        set(shown)
    )  # a title repeated in text, blocks and fallback is read once


# -- answered where alerts are on ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(MONITORS))
def test_an_alert_is_answered_in_its_thread_once_alerts_are_on(bot: Bot, name: str) -> None:
    alerts_on(bot)
    ts = alert(bot, name)
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    [call] = posts(bot, ts)
    assert answered_record(call) == MONITORS[name] and call.params["channel"] == CHANNEL
    assert_valid_message(call.params)
    assert (
        call.params["metadata"]["event_type"] == "errkb_answer"
    )  # what tells another errkb it is ours


def test_alerts_are_ignored_in_a_channel_that_did_not_turn_them_on(bot: Bot) -> None:
    ts = alert(bot, "sentry")
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    alerts_on(bot, False)
    ts2 = alert(bot, "datadog")
    wait_done(bot, f"alert:{CHANNEL}:{ts2}")
    assert bot.fake.of("chat.postMessage") == []
    assert bot.fake.of("users.info") == []  # an alert has no person whose language to ask for


def test_a_monitor_updating_and_repeating_its_alert_is_answered_once(bot: Bot) -> None:
    alerts_on(bot)
    ts = alert(bot, "sentry")
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    alert(bot, "sentry", thread_ts=ts)  # the monitor repeats it in the thread ("seen again")
    updated = {
        **fixture("sentry"),
        "ts": ts,
        "edited": {"user": "USENTRYBOT", "ts": "1722500100.000000"},
    }
    changed = {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "channel": CHANNEL,
        "ts": "1722500100.000001",
        "channel_type": "channel",
        "message": updated,
        "previous_message": fixture("sentry"),
    }
    assert bot.send.event(changed).status == 200
    assert bot.send.event(changed).status == 200  # and Slack delivers the update twice
    assert (
        job_count(bot) == 1
    )  # the repeat and the updates were the same alert: no job of their own
    assert len(posts(bot, ts)) == 1


def test_an_alert_in_a_chinese_channel_is_answered_in_chinese(bot: Bot) -> None:
    alerts_on(bot)
    with bot.store.transaction() as session:
        channel_repo.set_channel_locale(
            session, channel=CHANNEL, locale="zh", by=MAINTAINER, at=bot.clock.now()
        )
    ts = alert(bot, "pagerduty")
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    [call] = posts(bot, ts)
    shown = json.dumps(call.params["blocks"], ensure_ascii=False)
    assert "冷却回路没有预先充注" in shown and "coolant loop" not in shown


def test_an_unknown_alert_is_queued_with_its_source_app(bot: Bot) -> None:
    alerts_on(bot)
    unknown = fixture("datadog")
    unknown["attachments"][0]["text"] = (
        "```\nZorblaxFluxError: flux capacitor 7 misaligned by 12 degrees\n```"
    )
    ts = f"1722500000.{bot.send.next_id():06d}"
    assert (
        bot.send.event({**unknown, "channel": CHANNEL, "ts": ts, "channel_type": "channel"}).status
        == 200
    )
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    with bot.store.read() as session:
        [found] = [
            u
            for u in slack_repo.unknown_errors(session, limit=20)
            if "ZorblaxFluxError" in u.sample
        ]
    assert found.source == "Datadog"
    assert posts(bot, ts) == []  # not sure, not asked: nothing posted in the channel


# -- loops -------------------------------------------------------------------------


def test_errkbs_own_posts_and_another_errkbs_are_never_read(bot: Bot) -> None:
    alerts_on(bot)
    own = {
        "type": "message",
        "channel": CHANNEL,
        "channel_type": "channel",
        "bot_id": "BBOT",
        "text": PASTE,
        "ts": "1722500000.900001",
    }
    same_app = {**own, "bot_id": "BOTHER", "app_id": "A1", "ts": "1722500000.900002"}
    marked = {
        **own,
        "bot_id": "BOTHER2",
        "app_id": "AOTHER",
        "ts": "1722500000.900003",
        "metadata": {"event_type": "errkb_answer", "event_payload": {"job": "x"}},
    }
    by_ids = {
        **own,
        "bot_id": "BOTHER3",
        "app_id": "AOTHER3",
        "ts": "1722500000.900004",
        "blocks": [{"type": "actions", "block_id": "errkb.votes", "elements": []}],
    }
    for event in (own, same_app, marked, by_ids):
        assert bot.send.event(event).status == 200
    assert job_count(bot) == 0  # refused before any work was written
    updated = {
        "type": "message",
        "subtype": "message_changed",
        "channel": CHANNEL,
        "channel_type": "channel",
        "ts": "1722500000.900005",
        "message": {**own, "text": PASTE + "\nmore"},
        "previous_message": own,
    }
    assert bot.send.event(updated).status == 200  # errkb updating its own answer (More, a vote)
    assert job_count(bot) == 0 and bot.fake.of("chat.postMessage") == []


# -- edits -------------------------------------------------------------------------


def edited(bot: Bot, ts: str, before: str, after: str, *, user: str = EN_USER) -> None:
    now = f"1722500200.{bot.send.next_id():06d}"
    event = {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "channel": CHANNEL,
        "ts": now,
        "event_ts": now,
        "channel_type": "channel",
        "message": {
            "type": "message",
            "user": user,
            "text": after,
            "ts": ts,
            "client_msg_id": f"cm-{ts}",
            "edited": {"user": user, "ts": now},
        },
        "previous_message": {
            "type": "message",
            "user": user,
            "text": before,
            "ts": ts,
            "client_msg_id": f"cm-{ts}",
        },
    }
    assert bot.send.event(event).status == 200


@pytest.mark.parametrize(
    ("user", "words"), [(EN_USER, "coolant loop primed"), (ZH_USER, "冷却回路没有预先充注")]
)
def test_an_edit_that_brings_an_error_is_answered_once(bot: Bot, user: str, words: str) -> None:
    response, ts = bot.send.message("the worker keeps dying, log below", user=user)
    assert response.status == 200
    edited(
        bot, ts, "the worker keeps dying, log below", f"the worker keeps dying:\n{PASTE}", user=user
    )
    [call] = bot.fake.wait_for("chat.postMessage")
    assert call.params["thread_ts"] == ts and FROB in json.dumps(call.params["blocks"])
    edited(
        bot, ts, "the worker keeps dying, log below", f"the worker keeps dying:\n{PASTE}", user=user
    )  # redelivered
    edited(
        bot,
        ts,
        f"the worker keeps dying:\n{PASTE}",
        f"the worker keeps dying (again):\n{PASTE}",
        user=user,
    )
    edited(
        bot, ts, f"the worker keeps dying (again):\n{PASTE}", "never mind, fixed", user=user
    )  # error removed
    assert job_count(bot) == 1  # only the first edit brought an error
    assert len(bot.fake.of("chat.postMessage")) == 1
    assert bot.fake.of("chat.delete") == []  # the answer stays; a maintainer may Remove it
    assert words in json.dumps(
        call.params["blocks"], ensure_ascii=False
    )  # in the editor's language


def test_alerts_on_and_off_in_the_channel_command(bot: Bot) -> None:
    bot.send.command("channel alerts on", user=MAINTAINER)
    [call] = bot.fake.wait_for("response_url")
    assert (
        "*Alerts: on*" in json.dumps(call.params["blocks"])
        and "answers monitoring alerts" in call.params["text"]
    )
    with bot.store.read() as session:
        assert channel_repo.channel_settings(session, channel=CHANNEL).alerts
    bot.fake.reset()
    bot.send.command("channel alerts maybe", user=MAINTAINER)
    [call] = bot.fake.wait_for("response_url")
    assert "Alerts are `on` or `off`" in call.params["text"]
    bot.fake.reset()
    bot.send.command("channel alerts off", user=EN_USER)
    [call] = bot.fake.wait_for("response_url")
    assert "only knowledge-base maintainers" in call.params["text"]
    with bot.store.read() as session:
        assert channel_repo.channel_settings(session, channel=CHANNEL).alerts


def test_app_home_shows_maintainers_where_alerts_are_answered(bot: Bot) -> None:
    bot.send.event({"type": "app_home_opened", "user": MAINTAINER, "tab": "home"})
    [call] = bot.fake.wait_for("views.publish")
    assert "/errkb channel alerts on" in json.dumps(call.params["view"])
    alerts_on(bot)
    bot.fake.reset()
    bot.send.event({"type": "app_home_opened", "user": MAINTAINER, "tab": "home"})
    [call] = bot.fake.wait_for("views.publish")
    assert f"Monitoring alerts are answered in <#{CHANNEL}>" in json.dumps(call.params["view"])


def test_the_lookup_shortcut_on_an_alert_reads_its_attachments(bot: Bot) -> None:
    """Where alerts are off, anyone can still ask about one: the shortcut reads the whole alert."""
    message = {**fixture("alertmanager"), "ts": "1722500000.950001"}
    response = bot.send.shortcut("errkb_lookup", message)
    assert response.status == 200
    [call] = bot.fake.wait_for("chat.postMessage")
    assert call.params["thread_ts"] == "1722500000.950001" and VLLM in json.dumps(
        call.params["blocks"]
    )


def test_the_unknown_queue_names_the_app_whose_alert_it_was(bot: Bot) -> None:
    alerts_on(bot)
    unknown = fixture("datadog")
    unknown["attachments"][0]["text"] = (
        "```\nZorblaxFluxError: flux capacitor 7 misaligned by 12 degrees\n```"
    )
    ts = f"1722500000.{bot.send.next_id():06d}"
    assert (
        bot.send.event({**unknown, "channel": CHANNEL, "ts": ts, "channel_type": "channel"}).status
        == 200
    )
    wait_done(bot, f"alert:{CHANNEL}:{ts}")
    bot.send.command("unknown", user=MAINTAINER)
    [call] = bot.fake.wait_for("response_url")
    assert "from Datadog" in json.dumps(call.params["blocks"])
