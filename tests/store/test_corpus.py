"""The full deadends corpus imports with nothing lost, and re-imports as unchanged."""

from __future__ import annotations

import gzip
import json
from collections import Counter

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.ingest import load_records
from bot.ingest.deadends import native_to_canon
from bot.store import repository as repo
from bot.store.models import DeadEndRow, LinkRow, RecordRow, WorkaroundRow
from tests.conftest import DEADENDS, need_shared
from tests.store.test_repository import NOW


def test_deadends_corpus_imports_whole_and_reimports_unchanged(session: Session) -> None:
    path = need_shared(DEADENDS)
    originals = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    records = load_records([path])
    assert len(records) == len(originals) == 2522
    summary = repo.import_records(
        session, records=records, on_conflict="upsert", actor="test", now=NOW
    )
    assert summary.counts()["added"] == 2522

    def count(model: type) -> int:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)

    assert count(RecordRow) == 2522
    assert count(WorkaroundRow) == sum(len(o["workarounds"]) for o in originals)
    assert count(DeadEndRow) == sum(len(o["dead_ends"]) for o in originals)
    kinds: Counter[str] = Counter()
    for o in originals:
        for kind, items in o["transition_graph"].items():
            kinds[kind] += len(items)
    assert dict(
        session.execute(select(LinkRow.kind, func.count()).group_by(LinkRow.kind)).all()
    ) == dict(kinds)
    assert repo.stats(session)["dangling_links"] == 0

    stored = {r.id: r for r in repo.load_records(session)}
    assert [o for o in originals if native_to_canon(stored[o["id"]]) != o] == []

    again = repo.import_records(
        session, records=load_records([path]), on_conflict="upsert", actor="test", now=NOW
    )
    assert again.counts() == {"added": 0, "updated": 0, "unchanged": 2522, "skipped": 0}
