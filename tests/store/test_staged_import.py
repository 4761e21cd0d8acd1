"""A staged import (SQLite's, beside a live bot) writes what one transaction would have: the
same records, vote counters carried over, audit entries and one knowledge version; a record
changed by someone else between plan and apply sends it back to plan again; a conflict writes
nothing. Runs on either database (PostgreSQL's imports use one transaction, but the staged
path is the same SQL)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.records import Record
from bot.store import repository as repo
from bot.store import slack_repo, staged
from bot.store.db import Store
from bot.store.models import AuditRow
from tests.conftest import FIXTURES

NOW = datetime(2025, 8, 1, 9, 30, tzinfo=UTC)


def seed(**changes: Any) -> Record:
    data = json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))
    return Record.model_validate({**data, **changes})


def other(n: int) -> Record:
    return Record.model_validate(
        {
            "id": f"staged/r{n}",
            "signature": f"StagedError: {n}",
            "regex": "StagedError",
            "domain": "staged",
            "workarounds": [{"action": f"fix {n}"}],
            "transition_graph": {"leads_to": [f"staged/r{n + 1}"]},
        }
    )


def stage(
    store: Store, *records: Record, on_conflict: repo.OnConflict = "upsert"
) -> repo.ImportSummary:
    return staged.import_staged(
        store, records=list(records), on_conflict=on_conflict, actor="test", now=NOW
    )


def stored(store: Store) -> dict[str, dict[str, Any]]:
    with store.read() as session:
        return {r.id: r.to_native() for r in repo.load_records(session)}


def test_a_staged_import_writes_what_it_read(committed_store: Store) -> None:
    records = [seed(), *(other(n) for n in range(300))]
    summary = stage(committed_store, *records)
    assert len(summary.added) == 301 and not summary.updated
    assert stored(committed_store) == {r.id: r.to_native() for r in records}
    with committed_store.read() as session:
        version = repo.kb_version(session)
        changes = repo.knowledge_changes(session, since=0)
    assert version == 1 and {r.id for r in changes.upserted} == {r.id for r in records}
    again = stage(committed_store, *records)
    assert len(again.unchanged) == 301
    with committed_store.read() as session:
        assert repo.kb_version(session) == 1, "an unchanged import moves nothing"


def test_votes_survive_a_staged_update_and_it_is_audited(committed_store: Store) -> None:
    stage(committed_store, seed())
    with committed_store.transaction() as session:
        slack_repo.cast_vote(
            session,
            user_id="U1",
            record_id=seed().id,
            position=0,
            thread="t",
            verdict="fixed",
            at=NOW,
        )
    changed = seed(root_cause="A different cause, for the test.")
    summary = stage(committed_store, changed)
    assert summary.updated == [changed.id]
    with committed_store.read() as session:
        assert slack_repo.workaround_counts(session, record_ids=[changed.id])[(changed.id, 0)] == (
            1,
            0,
        )
        audit = session.scalars(select(AuditRow).where(AuditRow.action == "update")).one()
    assert audit.after == {"root_cause": "A different cause, for the test."}
    assert stored(committed_store)[changed.id] == changed.to_native()


def test_evidence_alone_is_written_without_a_new_knowledge_version(committed_store: Store) -> None:
    stage(committed_store, seed())
    with committed_store.read() as session:
        before = repo.kb_version(session)
    stage(committed_store, seed(last_confirmed=date(2026, 1, 2)))
    with committed_store.read() as session:
        assert repo.kb_version(session) == before
    assert stored(committed_store)[seed().id]["last_confirmed"] == "2026-01-02"


def test_a_conflict_writes_nothing(committed_store: Store) -> None:
    stage(committed_store, seed())
    summary = stage(committed_store, seed(root_cause="Other."), other(1), on_conflict="fail")
    assert summary.conflicts == [seed().id]
    assert set(stored(committed_store)) == {seed().id}


def test_a_record_changed_between_plan_and_apply_is_planned_again(
    committed_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage(committed_store, seed(), other(1))
    real = staged._stage
    calls = []

    def meanwhile(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:  # someone else changes the record after the first plan
            with committed_store.transaction() as session:
                repo.import_records(
                    session,
                    records=[seed(root_cause="Changed meanwhile.")],
                    on_conflict="upsert",
                    actor="other",
                    now=NOW,
                )

    monkeypatch.setattr(staged, "_stage", meanwhile)
    summary = stage(committed_store, seed(root_cause="Ours."), other(2))
    assert len(calls) == 2 and summary.updated == [seed().id] and summary.added == ["staged/r2"]
    assert stored(committed_store)[seed().id]["root_cause"] == "Ours."
    with committed_store.read() as session:
        updates = session.scalar(
            select(func.count()).select_from(AuditRow).where(AuditRow.action == "update")
        )
    assert updates == 2, "the other writer's update and ours, each once"
