"""A running ``errkb serve`` follows the knowledge base: evidence (votes, confirmations,
snoozes) rebuilds nothing, an edited record is answered with its new content after an
incremental update, and ``/metrics`` counts each rebuild by kind."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.records import Record
from bot.render.ids import ActionId
from bot.render.state import VoteState
from bot.store import digest_repo, repository
from bot.store.db import Store
from tests.ops.conftest import ServeProcess
from tests.slack.conftest import HERE, PASTE, SlackSender
from tests.slack.fake_slack import FakeSlack

REBUILDS = "errkb_knowledge_rebuilds_total"


def _eventually(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def _rebuilds(bot: ServeProcess) -> tuple[float, float]:
    return bot.metric(REBUILDS, kind="full"), bot.metric(REBUILDS, kind="incremental")


def _show(send: SlackSender, fake: FakeSlack, record_id: str) -> str:
    before = len(fake.of("response_url"))
    assert send.command(f"show {record_id}").status == 200
    calls = fake.wait_for("response_url", before + 1)
    return json.dumps(calls[before].params.get("blocks"), ensure_ascii=False)


@pytest.mark.slow
def test_evidence_rebuilds_nothing_and_an_edit_is_answered_after_one_incremental_update(
    serve: Any, fake_slack: FakeSlack, kb_store: Store
) -> None:
    bot: ServeProcess = serve().ready()  # ERRKB_KB_REFRESH_SECONDS=0.2
    send = bot.sender(fake_slack)
    assert _rebuilds(bot) == (1, 0), "one full build at start"

    _, ts = send.message(PASTE)
    posted = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
    )
    vote = next(
        e["value"]
        for b in posted[0].params["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == ActionId.VOTE_FIXED
    )
    record_id = VoteState.model_validate_json(vote).record

    # evidence: a "This fixed it" vote through Slack, a digest confirmation and a snooze
    assert send.click(ActionId.VOTE_FIXED, vote, message_ts=ts).status == 200
    fake_slack.wait_for("chat.update")
    now = datetime.now(UTC)
    with kb_store.transaction() as session:
        digest_repo.confirm_record(
            session, record_id=record_id, actor="U1", today=now.date(), now=now
        )
        others = sorted(repository.record_ids(session) - {record_id})
        digest_repo.snooze_record(
            session, record_id=others[0], days=7, actor="U1", today=now.date(), now=now
        )
    time.sleep(1.5)  # several polls
    assert _rebuilds(bot) == (1, 0), "evidence changes nothing matching reads"
    assert "Last confirmed today" in _show(send, fake_slack, record_id), "evidence is read fresh"

    # an edit: one incremental update, and the answer carries the new text
    data = next(
        r
        for r in json.loads((HERE / "kb.json").read_text(encoding="utf-8"))
        if r["id"] == record_id
    )
    data["root_cause"] = "Edited while serving: the thermal paste dried out."
    with kb_store.transaction() as session:
        repository.import_records(
            session,
            records=[Record.model_validate(data)],
            on_conflict="upsert",
            actor="test",
            now=now,
        )
    _eventually(lambda: _rebuilds(bot) == (1, 1), "one incremental update")
    assert "thermal paste dried out" in _show(send, fake_slack, record_id)
    _, again = send.message(PASTE)
    answer = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == again
    )
    assert "thermal paste dried out" in json.dumps(answer[0].params["blocks"], ensure_ascii=False)
    time.sleep(1.0)
    assert _rebuilds(bot) == (1, 1), "one change, one update"
