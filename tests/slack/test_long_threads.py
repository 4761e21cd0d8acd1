"""One answer per message in threads longer than a page of ``conversations.replies``.

A post whose outcome errkb never learnt (Slack slower than the client's 10 s
timeout) is looked for in the thread before it is tried again. Slack pages a
thread oldest first, at most 200 replies a page: in a busy thread the answer
is pages away from the root, so the look-up starts at the paste and follows
the cursor. The stand-in pages the way Slack does, checked here first.
"""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk import WebClient

from tests.ops.delivery import answers_by_thread, lost_and_doubled
from tests.slack.conftest import CHANNEL, PASTE, TOKEN, Bot, wait_done
from tests.slack.fake_slack import BOT_USER, REPLIES_PAGE, FakeSlack

REPLIES = 250
PASTES = 10


def long_thread(
    fake: FakeSlack, n: int, *, before: int = REPLIES, after: int = REPLIES
) -> tuple[str, str]:
    """A thread of ``before`` replies, then a paste, then ``after`` more replies: (root ts, paste
    ts)."""
    second = 1722800000 + 10 * n
    root = f"{second}.000000"
    fake.add_message(CHANNEL, root, "incident: the nightly job is failing again")
    for i in range(before):
        fake.add_message(CHANNEL, f"{second}.{i + 1:06d}", f"looking at it ({i})", thread_ts=root)
    paste = f"{second + 1}.000000"
    fake.add_message(CHANNEL, paste, PASTE, thread_ts=root)
    for i in range(after):
        fake.add_message(CHANNEL, f"{second + 2}.{i:06d}", f"same here ({i})", thread_ts=root)
    return root, paste


def _pages(client: WebClient, **params: Any) -> list[dict[str, Any]]:
    pages = []
    cursor = None
    while True:
        page = client.conversations_replies(
            channel=CHANNEL, **params, **({"cursor": cursor} if cursor else {})
        )
        pages.append(page.data)
        cursor = page["response_metadata"]["next_cursor"]
        if not page["has_more"]:
            assert cursor == ""
            return pages
        assert cursor


def test_the_stand_in_pages_a_thread_as_slack_does(fake_slack: FakeSlack) -> None:
    fake_slack.reset()
    root, paste = long_thread(fake_slack, 99)
    client = WebClient(token=TOKEN, base_url=fake_slack.api_url)

    whole = _pages(client, ts=root, limit=1000)  # more than a page may hold: Slack gives fewer
    assert [len(p["messages"]) for p in whole] == [
        REPLIES_PAGE,
        REPLIES_PAGE,
        2 * REPLIES + 2 - 2 * REPLIES_PAGE,
    ]
    ts = [m["ts"] for p in whole for m in p["messages"]]
    assert ts[0] == root and ts == sorted(ts, key=float) and len(set(ts)) == 2 * REPLIES + 2

    default = _pages(client, ts=root)  # no limit: the default page
    assert [len(p["messages"]) for p in default] == [len(p["messages"]) for p in whole]

    after = [
        m["ts"] for p in _pages(client, ts=root, oldest=paste, limit=100) for m in p["messages"]
    ]
    assert after[0] == root, "the root comes first, whatever the window"
    assert (
        paste not in after
        and len(after) == 1 + REPLIES
        and all(float(t) > float(paste) for t in after[1:])
    )
    with_paste = [
        m["ts"]
        for p in _pages(client, ts=root, oldest=paste, inclusive=True)
        for m in p["messages"]
    ]
    assert with_paste[1] == paste

    refused = fake_slack.answer(
        "conversations.replies", {"channel": CHANNEL, "ts": root, "cursor": "not-one"}, TOKEN
    )
    assert refused[1] == {"ok": False, "error": "invalid_cursor"}


@pytest.mark.slow
def test_slow_posts_in_long_threads_are_answered_once(bot: Bot) -> None:
    threads = [long_thread(bot.fake, n) for n in range(PASTES)]
    # each first post reaches the thread but is answered after the client's 10 s timeout
    bot.fake.slow_next("chat.postMessage", 11.0, times=PASTES)
    for root, paste in threads:
        response, _ = bot.send.message(PASTE, ts=paste, thread_ts=root)
        assert response.status == 200
    for _, paste in threads:  # each job tried again after its timeout, and done
        wait_done(bot, f"msg:cm-{paste}", timeout=60)
    roots = [root for root, _ in threads]
    assert lost_and_doubled(answers_by_thread(bot.fake), roots) == ([], [])
    looked = bot.fake.of("conversations.replies")
    pastes = {paste for _, paste in threads}
    assert {c.params.get("oldest") for c in looked} == pastes, "each look-up starts at its paste"
    assert any(c.params.get("cursor") for c in looked), (
        "the answer was past the first page: the cursor was followed"
    )
    assert sum(answers_by_thread(bot.fake).values()) == PASTES


def test_a_mention_reads_a_long_thread_to_its_newest_error(bot: Bot) -> None:
    """``@errkb`` with no error of its own looks for the thread's newest error: in a thread
    of 250 replies with the error at its end, that is pages after the first one."""
    bot.fake.reset()
    root, _ = long_thread(bot.fake, 90, before=REPLIES, after=0)
    mention = f"{int(float(root)) + 5}.000000"
    event = {
        "type": "app_mention",
        "channel": CHANNEL,
        "user": "UENGLISH",
        "ts": mention,
        "thread_ts": root,
        "text": f"<@{BOT_USER}> what is this?",
        "client_msg_id": f"cm-{mention}",
    }
    assert bot.send.event(event).status == 200
    [post] = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == root
    )
    assert "FrobnicatorOverheatError" in str(post.params.get("blocks"))
    pages = [c for c in bot.fake.of("conversations.replies") if c.params.get("ts") == root]
    assert any(c.params.get("cursor") for c in pages), "the thread is read past its first page"
