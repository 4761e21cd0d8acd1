"""A server killed with answers in flight in long threads: the restarted server answers
each paste once.

Each paste is a reply in a thread of 250 replies, and 250 more follow it
before the server comes back; ``errkb serve`` is killed (SIGKILL) while its
posts are on their way to Slack, Slack takes them anyway, and the restarted
server finds them (pages away from the thread's root) instead of posting again.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.ops.conftest import ServeProcess
from tests.ops.delivery import answers_by_thread, lost_and_doubled, wait_for_answers
from tests.slack.conftest import PASTE
from tests.slack.fake_slack import FakeSlack
from tests.slack.test_long_threads import long_thread

PASTES = 20


@pytest.mark.slow
def test_a_killed_server_answers_pastes_in_long_threads_once_after_restart(
    serve: Any, fake_slack: FakeSlack
) -> None:
    env = {"ERRKB_JOB_LEASE_SECONDS": "5", "ERRKB_WORKERS": str(PASTES)}
    first: ServeProcess = serve(**env).ready()
    threads = [long_thread(fake_slack, n) for n in range(PASTES)]
    fake_slack.hold("chat.postMessage")  # every answer on its way to Slack, none answered yet
    sender = first.sender(fake_slack)
    for root, paste in threads:
        response, _ = sender.message(PASTE, ts=paste, thread_ts=root)
        assert response.status == 200
    assert len(fake_slack.wait_for("chat.postMessage", PASTES, timeout=30)) == PASTES
    first.proc.kill()  # SIGKILL mid-post
    first.proc.wait(timeout=10)
    fake_slack.release("chat.postMessage")  # Slack posts what it was sent
    roots = [root for root, _ in threads]
    assert all(wait_for_answers(fake_slack, roots, timeout=10)[r] == 1 for r in roots)

    second: ServeProcess = serve(**env).ready()
    pastes = {paste for _, paste in threads}
    deadline = time.monotonic() + 60
    while {c.params.get("oldest") for c in fake_slack.of("conversations.replies")} != pastes:
        assert time.monotonic() < deadline, "each paste's answer is looked for from the paste on"
        time.sleep(0.05)
    posts_before = len(fake_slack.of("chat.postMessage"))
    second.terminate()  # a clean stop finishes what it started
    assert second.wait(timeout=40) == 0
    assert lost_and_doubled(answers_by_thread(fake_slack), roots) == ([], [])
    assert len(fake_slack.of("chat.postMessage")) == posts_before == PASTES
