"""Slack having a bad day: answers are postponed, not lost, and never posted twice.

- the Web API down for a minute: every paste made meanwhile is answered once it is back;
- one channel rate limited (429 with Retry-After): its answers come after the wait, other
  channels keep answering within a second;
- the lookups that only decorate an answer (the user's locale, a permalink) failing: the
  answer goes out anyway, in the channel's or errkb's default language, without a link.
"""

from __future__ import annotations

import time

import pytest

from tests.ops.delivery import answers_by_thread, lost_and_doubled, wait_for_answers
from tests.slack.conftest import ACK_S, CHANNEL, PASTE, Bot

OUTAGE = 60.0
OTHER = "C0OTHER"


def _paste(bot: Bot, channel: str = CHANNEL, user: str = "UENGLISH", n: int = 0) -> str:
    ts = f"1722600000.{bot.send.next_id():06d}"
    event = {
        "type": "message",
        "channel": channel,
        "user": user,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "text": PASTE.replace("512", str(400 + n)),
    }
    assert bot.send.event(event).status == 200
    return ts


@pytest.mark.slow
def test_a_paste_made_while_slack_is_down_is_answered_once_when_it_is_back(bot: Bot) -> None:
    answered_before = bot.metrics.value("errkb_answers_total", kind="answer")
    expired_before = bot.metrics.value("errkb_job_expirations_total", kind="paste")
    bot.fake.outage(503)
    started = time.monotonic()
    threads = []
    while time.monotonic() - started < OUTAGE:  # a paste every few seconds of the outage
        threads.append(_paste(bot, n=len(threads)))
        time.sleep(OUTAGE / 12)
    assert not answers_by_thread(bot.fake), "nothing can be posted while Slack is down"
    bot.fake.restore()
    counts = wait_for_answers(bot.fake, threads, timeout=45)
    lost, doubled = lost_and_doubled(counts, threads)
    assert (lost, doubled) == ([], [])
    assert bot.metrics.value("errkb_job_expirations_total", kind="paste") == expired_before
    # the counter moves just after Slack took the post: give the last one its moment
    deadline = time.monotonic() + 5
    answered = bot.metrics.value("errkb_answers_total", kind="answer") - answered_before
    while answered < len(threads) and time.monotonic() < deadline:
        time.sleep(0.05)
        answered = bot.metrics.value("errkb_answers_total", kind="answer") - answered_before
    assert answered == len(threads)


@pytest.mark.slow
def test_a_rate_limited_channel_waits_and_other_channels_do_not(bot: Bot) -> None:
    retries_before = bot.metrics.value(
        "errkb_job_retries_total", kind="paste", reason="ratelimited"
    )
    bot.fake.rate_limit(CHANNEL, seconds=8, retry_after=8)
    limited = [_paste(bot, CHANNEL, n=i) for i in range(3)]
    latencies = []
    for i in range(10):
        sent = time.monotonic()
        ts = _paste(bot, OTHER, n=i)
        assert wait_for_answers(bot.fake, [ts], timeout=5)[ts] == 1
        latencies.append(time.monotonic() - sent)
    assert max(latencies) < ACK_S, f"another channel's answers waited: {latencies}"
    counts = wait_for_answers(bot.fake, limited, timeout=30)
    assert lost_and_doubled(counts, limited) == ([], [])
    # the first 429 holds the channel back: its other answers wait without asking Slack again
    # (unless already under way when the 429 came)
    assert (
        1
        <= bot.metrics.value("errkb_job_retries_total", kind="paste", reason="ratelimited")
        - retries_before
        <= 3
    )


def test_failing_locale_and_permalink_lookups_do_not_stop_the_answer(bot: Bot) -> None:
    newcomer = (
        "UZHNEWCOMER"  # Chinese, as users.info would say if it answered; never looked up before
    )
    bot.fake.users[newcomer] = {"locale": "zh-CN"}
    bot.fake.broken.update({"users.info": 500, "chat.getPermalink": 500})
    answered = _paste(bot, user=newcomer)
    # an unknown error, mentioned: noted with a permalink normally, answered "nothing known"
    ts = f"1722600001.{bot.send.next_id():06d}"
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": newcomer,
            "ts": ts,
            "client_msg_id": f"cm-{ts}",
            "text": "<@UBOT> QuuxBlorfError: the blorf went sideways at level 9",
        }
    )
    counts = wait_for_answers(bot.fake, [answered, ts], timeout=10)
    assert counts[answered] == 1 and counts[ts] == 1
    posts = {c.params["thread_ts"]: c for c in bot.fake.of("chat.postMessage")}
    assert "Cause:" in str(posts[answered].params["blocks"]), (
        "English: Slack would not say the locale"
    )
    assert "archives" not in str(posts[ts].params["blocks"])
