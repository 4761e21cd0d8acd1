"""Two ``errkb serve --http`` processes on one PostgreSQL share the work correctly.

Slack retries a delivery to whichever replica its load balancer picks: the
event is answered once. A record confirmed through one replica (a "This
fixed it" vote) or changed by ``errkb import`` is seen fresh through the
other, whose index and graph reload when the database's change counter moves.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.render.ids import ActionId
from bot.render.state import VoteState
from tests.ops.conftest import ServeProcess, clean_env, errkb_command
from tests.slack.conftest import CHANNEL, EN_USER, HERE, PASTE, SlackSender
from tests.slack.fake_slack import FakeSlack

pytestmark = pytest.mark.skipif(
    not os.environ.get("ERRKB_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="replicas share a PostgreSQL database: set ERRKB_TEST_DATABASE_URL=postgresql://... "
    "(the CI PostgreSQL pass does)",
)

WAIT = 20.0


def eventually(check: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    """``check()``'s first truthy result, polled until ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            assert found, f"timed out waiting for {what}"
            return found
        time.sleep(0.05)


def two_replicas(serve: Callable[..., ServeProcess]) -> tuple[ServeProcess, ServeProcess]:
    first = serve()
    second = serve()  # both start at once
    return first.ready(), second.ready()


def show(send: SlackSender, fake: FakeSlack, record_id: str) -> str:
    """The blocks ``/errkb show`` answers with through ``send``'s replica, as JSON text."""
    before = len(fake.of("response_url"))
    assert send.command(f"show {record_id}").status == 200
    calls = fake.wait_for("response_url", before + 1)
    assert len(calls) > before
    return json.dumps(calls[before].params.get("blocks"), ensure_ascii=False)


def _vote_buttons(blocks: list[dict[str, Any]]) -> list[str]:
    return [
        e["value"]
        for b in blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == ActionId.VOTE_FIXED
    ]


def test_same_event_to_both_replicas_is_answered_once(serve: Any, fake_slack: FakeSlack) -> None:
    a, b = two_replicas(serve)
    ts = "1722500100.000001"
    event = {
        "type": "message",
        "channel": CHANNEL,
        "user": EN_USER,
        "text": PASTE,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "channel_type": "channel",
    }
    with ThreadPoolExecutor(2) as pool:  # the first delivery and Slack's retry, at the same time
        first = pool.submit(a.sender(fake_slack).event, event, event_id="EvREPLICA0001")
        retry = pool.submit(b.sender(fake_slack).event, event, event_id="EvREPLICA0001", retry=1)
        assert first.result().status == 200 and retry.result().status == 200

    def settled() -> bool:
        answered = sum(p.metric("errkb_answers_total", kind="answer") for p in (a, b))
        duplicates = sum(p.metric("errkb_declines_total", reason="duplicate") for p in (a, b))
        return answered + duplicates == 2

    eventually(settled, what="both replicas to handle the delivery")
    assert sum(p.metric("errkb_answers_total", kind="answer") for p in (a, b)) == 1
    answers = fake_slack.of("chat.postMessage")
    assert len(answers) == 1 and answers[0].params["thread_ts"] == ts


def test_a_record_confirmed_or_changed_through_one_replica_is_fresh_through_the_other(
    serve: Any, fake_slack: FakeSlack, tmp_path: Path, serve_env: dict[str, str]
) -> None:
    a, b = two_replicas(serve)
    send_a = a.sender(fake_slack)
    send_b = b.sender(fake_slack)
    _, ts = send_a.message(PASTE)
    posted = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
    )
    vote = _vote_buttons(posted[0].params["blocks"])[0]
    record_id = VoteState.model_validate_json(vote).record
    assert "Last confirmed today" not in show(send_b, fake_slack, record_id)

    # confirmed through A: a "This fixed it" vote is fresh evidence
    assert send_a.click(ActionId.VOTE_FIXED, vote, message_ts=ts).status == 200
    fake_slack.wait_for("chat.update")
    eventually(
        lambda: "Last confirmed today" in show(send_b, fake_slack, record_id),
        what="replica B to see the confirmation made through A",
    )

    # changed by `errkb import` (a third process): both replicas answer with the new text
    record = next(
        r
        for r in json.loads((HERE / "kb.json").read_text(encoding="utf-8"))
        if r["id"] == record_id
    )
    record["root_cause"] = "Edited through errkb import: the thermal paste dried out."
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run(
        errkb_command("import", str(edited), "--on-conflict", "upsert"),
        env=clean_env(tmp_path, ERRKB_DATABASE_URL=serve_env["ERRKB_DATABASE_URL"]),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for send, name in ((send_a, "A"), (send_b, "B")):
        eventually(
            lambda s=send: "thermal paste dried out" in show(s, fake_slack, record_id),  # type: ignore[misc]
            what=f"replica {name} to reload the imported record",
        )


DIGEST = "CDIGEST"
PERIOD = 6  # seconds between scheduled digests in this test


def test_one_digest_per_period_across_replicas(
    serve: Any, fake_slack: FakeSlack, kb_store: Any
) -> None:
    """Three replicas, a digest every few seconds, one replica killed on the way:
    every period gets exactly one digest, none is lost, none is doubled."""
    from datetime import UTC, datetime

    from bot.store import digest_repo

    schedule = {
        "ERRKB_DIGEST_CHANNEL": DIGEST,
        "ERRKB_DIGEST_CRON": f"*/{PERIOD} * * * * *",
        "ERRKB_DIGEST_RETRY_SECONDS": "1",
        "ERRKB_JOB_LEASE_SECONDS": "5",
    }
    replicas = [serve(**schedule) for _ in range(3)]
    for replica in replicas:
        replica.ready()
    time.sleep(2 * PERIOD + 1)
    replicas[0].kill()  # gone without a word, whatever it was doing
    time.sleep(3 * PERIOD)
    for replica in replicas[1:]:
        replica.terminate()
    for replica in replicas[1:]:
        assert replica.wait() == 0
    stopped = datetime.now(UTC)

    with kb_store.transaction() as session:
        runs = [r for r in digest_repo.runs(session) if r.audience == f"channel:{DIGEST}"]
    periods = sorted(
        datetime.strptime(r.period, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) for r in runs
    )
    settled = [
        r
        for r in runs
        if (
            stopped - datetime.strptime(r.period, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        ).total_seconds()
        > PERIOD + 3
    ]
    assert len(settled) >= 4, runs
    assert all(r.status == "done" for r in settled), [
        (r.period, r.status, r.last_error) for r in settled
    ]
    gaps = {(b - a).total_seconds() for a, b in zip(periods, periods[1:], strict=False)}
    assert gaps == {PERIOD}, periods  # no period skipped while a replica was down
    posts = [c for c in fake_slack.of("chat.postMessage") if c.params.get("channel") == DIGEST]
    assert len(posts) == sum(r.status == "done" for r in runs)  # one post per period, never two
    killed = str(replicas[0].proc.pid)
    assert all(
        (r.by or "::").split(":")[1] != killed
        for r in settled
        if r.period > periods[3].strftime("%Y-%m-%dT%H:%M:%SZ")
    )
