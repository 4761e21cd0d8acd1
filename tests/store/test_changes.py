"""Knowledge is versioned apart from evidence, with a per-record change feed.

What matching reads (content, links, translations, deprecation) moves the
knowledge version and lands in the feed; votes, confirmations, snoozes, usage
and unknown errors move nothing, so no process rebuilds its index for them.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.records import Record
from bot.store import digest_repo, slack_repo
from bot.store import repository as repo
from bot.store.changes import KEEP_REMOVED, KnowledgeChanges
from bot.store.models import KnowledgeChangeRow
from bot.store.observed import observe_error
from tests.conftest import FIXTURES
from tests.store.test_repository import NOW


def record(rid: str, **changes: Any) -> Record:
    data = json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))
    return Record.model_validate({**data, "id": rid, **changes})


def put(session: Session, *records: Record, now: datetime = NOW) -> repo.ImportSummary:
    return repo.import_records(
        session, records=list(records), on_conflict="upsert", actor="test", now=now
    )


def ids(changes: KnowledgeChanges) -> tuple[list[str], list[str]]:
    return [r.id for r in changes.upserted], changes.removed


def test_an_import_moves_the_version_once_and_feeds_its_records(session: Session) -> None:
    start = repo.knowledge_version(session)
    put(session, record("kc/a"), record("kc/b"))
    assert repo.knowledge_version(session) == start + 1
    changes = repo.knowledge_changes(session, since=start)
    assert (changes.version, changes.complete) == (start + 1, True)
    assert ids(changes) == (["kc/a", "kc/b"], [])
    assert changes.upserted[0] == record("kc/a")  # the current content, whole
    put(session, record("kc/a", root_cause="Edited."))
    assert ids(repo.knowledge_changes(session, since=start + 1)) == (["kc/a"], [])
    assert repo.knowledge_changes(session, since=start + 1).upserted[0].root_cause == "Edited."
    assert ids(repo.knowledge_changes(session, since=start)) == (["kc/a", "kc/b"], [])


def test_an_unchanged_import_and_an_up_to_date_reader_see_nothing_new(session: Session) -> None:
    put(session, record("kc/a"))
    version = repo.knowledge_version(session)
    assert put(session, record("kc/a")).unchanged == ["kc/a"]
    assert repo.knowledge_version(session) == version
    assert repo.knowledge_changes(session, since=version) == KnowledgeChanges(version=version)


def test_evidence_moves_no_knowledge_version(session: Session) -> None:
    put(session, record("kc/a"))
    version = repo.knowledge_version(session)
    today = date(2026, 12, 1)
    now = NOW + timedelta(days=2)
    outcome = slack_repo.cast_vote(
        session, user_id="U1", record_id="kc/a", position=0, thread="C1:1", verdict="fixed", at=now
    )
    assert outcome.changed
    assert slack_repo.record_evidence(
        session, record_id="kc/a", actor="slack:U1", today=today, at=now
    )
    digest_repo.confirm_record(
        session, record_id="kc/a", actor="slack:U2", today=today + timedelta(days=1), now=now
    )
    digest_repo.snooze_record(
        session, record_id="kc/a", days=30, actor="slack:U2", today=today, now=now
    )
    digest_repo.note_matches(session, record_ids=["kc/a"], at=now)
    digest_repo.mark_digested(session, record_ids=["kc/a"], at=now)
    slack_repo.note_unknown(session, template="E: <n>", sample="E: 1", permalink=None, at=now)
    slack_repo.choose_locale(session, user_id="U1", locale="zh", at=now)
    observe_error(session, scope="t", record_id="kc/a", seen_at=now)
    assert repo.knowledge_version(session) == version
    assert repo.knowledge_changes(session, since=version) == KnowledgeChanges(version=version)
    stored = repo.get_record(session, record_id="kc/a")
    assert stored is not None and stored.last_confirmed == today + timedelta(days=1)
    assert stored.evidence_count == record("kc/a").evidence_count + 1


def test_an_import_that_differs_only_in_evidence_rewrites_no_knowledge(session: Session) -> None:
    put(session, record("kc/a"))
    version = repo.knowledge_version(session)
    summary = put(session, record("kc/a", last_confirmed="2026-11-30", evidence_count=9))
    assert summary.updated == ["kc/a"]
    assert repo.knowledge_version(session) == version
    stored = repo.get_record(session, record_id="kc/a")
    assert stored == record("kc/a", last_confirmed="2026-11-30", evidence_count=9)
    assert put(
        session, record("kc/a", last_confirmed="2026-11-30", evidence_count=9)
    ).unchanged == ["kc/a"]


def test_a_confirmed_record_imported_again_from_its_file_gets_the_file_back(
    session: Session,
) -> None:
    put(session, record("kc/a"))
    digest_repo.confirm_record(
        session, record_id="kc/a", actor="slack:U2", today=date(2026, 12, 1), now=NOW
    )
    assert put(session, record("kc/a")).updated == ["kc/a"]  # evidence differs from the file
    assert repo.get_record(session, record_id="kc/a") == record("kc/a")


def test_deprecation_removes_restoring_upserts_deletion_removes(session: Session) -> None:
    put(session, record("kc/a"), record("kc/b"))
    start = repo.knowledge_version(session)
    digest_repo.deprecate_record(
        session, record_id="kc/a", reason="fixed upstream", actor="m", now=NOW
    )
    assert repo.knowledge_version(session) == start + 1
    assert ids(repo.knowledge_changes(session, since=start)) == ([], ["kc/a"])
    assert "kc/a" not in {r.id for r in repo.load_records(session, include_deprecated=False)}
    assert digest_repo.restore_record(session, record_id="kc/a", actor="m", now=NOW)
    assert not digest_repo.restore_record(session, record_id="kc/a", actor="m", now=NOW)
    assert ids(repo.knowledge_changes(session, since=start)) == (["kc/a"], [])
    assert ids(repo.knowledge_changes(session, since=start + 1)) == (["kc/a"], [])
    assert repo.delete_record(session, record_id="kc/b", actor="m", now=NOW)
    assert ids(repo.knowledge_changes(session, since=start)) == (["kc/a"], ["kc/b"])
    assert repo.knowledge_version(session) == start + 3


def test_what_a_reader_gets_is_each_records_state_now(session: Session) -> None:
    """Changed, then deprecated: removed. A deprecated record edited: still removed."""
    put(session, record("kc/a"), record("kc/b"))
    start = repo.knowledge_version(session)
    put(session, record("kc/a", root_cause="Edited."))
    digest_repo.deprecate_record(session, record_id="kc/a", reason="wrong", actor="m", now=NOW)
    digest_repo.deprecate_record(session, record_id="kc/b", reason="wrong", actor="m", now=NOW)
    put(session, record("kc/b", root_cause="Edited while deprecated."))
    assert ids(repo.knowledge_changes(session, since=start)) == ([], ["kc/a", "kc/b"])


def test_a_reader_the_feed_cannot_answer_is_told_to_reload(session: Session) -> None:
    put(session, record("kc/a"))
    version = repo.knowledge_version(session)
    ahead = repo.knowledge_changes(
        session, since=version + 5
    )  # a database restored from an older copy
    assert (ahead.complete, ahead.version, ahead.upserted, ahead.removed) == (
        False,
        version,
        [],
        [],
    )
    put(session, record("kc/b"), record("kc/c"), record("kc/d"))
    too_many = repo.knowledge_changes(session, since=version, limit=2)
    assert (too_many.complete, too_many.upserted) == (False, [])
    assert repo.knowledge_changes(session, since=version, limit=3).complete


def test_records_removed_long_ago_are_pruned_and_older_readers_reload(session: Session) -> None:
    put(session, record("kc/a"), record("kc/b"))
    start = repo.knowledge_version(session)
    repo.delete_record(session, record_id="kc/a", actor="m", now=NOW)
    deleted = repo.knowledge_version(session)
    later = NOW + KEEP_REMOVED + timedelta(minutes=1)
    put(session, record("kc/b", root_cause="Edited a week later."), now=later)
    feed = dict(
        session.execute(select(KnowledgeChangeRow.record_id, KnowledgeChangeRow.kind)).all()
    )
    assert "kc/a" not in feed and feed["kc/b"] == "upserted"
    assert not repo.knowledge_changes(
        session, since=start
    ).complete  # it would miss kc/a's deletion
    assert ids(repo.knowledge_changes(session, since=deleted)) == (["kc/b"], [])


def test_kb_version_is_the_knowledge_version(session: Session) -> None:
    put(session, record("kc/a"))
    assert (
        repo.kb_version(session)
        == repo.knowledge_version(session)
        == repo.stats(session)["kb_version"]
    )
