"""Translations of every text survive the database as written: strings stay strings,
objects keep their keys in order (PostgreSQL's JSONB would sort them)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.orm import Session

from bot.records import Record
from bot.store import repository as repo
from tests.store.test_repository import put
from tests.test_records import fully_translated

DATA = Path(__file__).resolve().parents[2] / "data"


def test_a_fully_translated_record_comes_back_exactly(session: Session) -> None:
    data = fully_translated()
    data["dead_ends_zh"][1] = {
        "condition": "vLLM 0.4 上",
        **data["dead_ends_zh"][1],
    }  # an unusual key order
    put(session, Record.model_validate(data))
    stored = repo.get_record(session, record_id=data["id"])
    assert stored is not None
    native = stored.to_native()
    assert native == data
    assert json.dumps(native, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)
    assert stored.localized("zh").fallbacks == ()


def test_the_starter_knowledge_base_comes_back_exactly(session: Session) -> None:
    raw = [r for path in sorted(DATA.glob("*.json")) for r in json.loads(path.read_text("utf-8"))]
    put(session, *(Record.model_validate(r) for r in raw))
    stored = {r.id: r for r in repo.load_records(session)}
    changed = [
        r["id"]
        for r in raw
        if json.dumps(stored[r["id"]].to_native(), ensure_ascii=False)
        != json.dumps(r, ensure_ascii=False)
    ]
    assert changed == []
    again = put(session, *(Record.model_validate(r) for r in raw))
    assert again.counts()["unchanged"] == len(raw)
