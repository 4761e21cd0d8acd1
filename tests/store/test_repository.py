"""The record store on a real database: round trips, upserts, fallback, audit."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.ingest import load_records, read_records
from bot.ingest.deadends import native_to_canon
from bot.records import Record
from bot.store import repository as repo
from bot.store.models import AuditRow, LinkRow, RecordRow, WorkaroundRow
from tests.conftest import FIXTURES

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def seed() -> dict[str, Any]:
    return json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))


def canon() -> dict[str, Any]:
    return json.loads((FIXTURES / "deadends-canon.json").read_text(encoding="utf-8"))


def put(
    session: Session, *records: Record, on_conflict: repo.OnConflict = "upsert"
) -> repo.ImportSummary:
    return repo.import_records(
        session, records=list(records), on_conflict=on_conflict, actor="test", now=NOW
    )


def test_seed_survives_store_round_trip(session: Session) -> None:
    put(session, Record.model_validate(seed()))
    stored = repo.get_record(session, record_id=seed()["id"])
    assert stored is not None
    assert stored.to_native() == seed()


def test_every_canon_field_is_mapped_and_kept(session: Session, tmp_path: Path) -> None:
    path = tmp_path / "canon.json"
    path.write_text(json.dumps(canon()), encoding="utf-8")
    [record] = load_records([path])
    original = canon()
    assert record.signature == original["error"]["signature"]
    assert record.regex == original["error"]["regex"]
    assert record.domain == original["error"]["domain"]
    assert record.category == original["error"]["category"]
    assert record.first_seen == date.fromisoformat(original["error"]["first_seen"])
    assert record.last_confirmed == date.fromisoformat(original["error"]["last_confirmed"])
    assert record.root_cause == original["verdict"]["summary"]
    assert record.resolvable == original["verdict"]["resolvable"]
    assert record.fix_success_rate == original["verdict"]["fix_success_rate"]
    assert record.confidence == original["verdict"]["confidence"]
    assert record.last_updated == date.fromisoformat(original["verdict"]["last_updated"])
    assert record.verification_tier == original["metadata"]["review_status"]
    assert record.evidence_count == original["metadata"]["evidence_count"]
    runtime = original["environment"]["runtime"]
    assert record.versions[0].version == f"{runtime['name']} {runtime['version_range']}"
    assert [w.action for w in record.workarounds] == [w["action"] for w in original["workarounds"]]
    assert record.workarounds[0].model_extra == {"tradeoff": original["workarounds"][0]["tradeoff"]}
    assert record.dead_ends[0].model_extra == {
        "common_misconception": original["dead_ends"][0]["common_misconception"]
    }
    put(session, record)
    stored = repo.get_record(session, record_id=record.id)
    assert stored is not None
    assert native_to_canon(stored) == original


def test_links_are_rows_and_dangling_targets_are_kept(session: Session) -> None:
    data = seed()
    data["transition_graph"] = {
        "leads_to": [
            {"error_id": "llm/not-yet-written", "probability": 0.3, "condition": "long prompts"}
        ],
        "preceded_by": ["llm/also-missing"],
        "frequently_confused_with": [],
    }
    put(session, Record.model_validate(data))
    rows = session.execute(
        select(LinkRow.kind, LinkRow.target_id, LinkRow.probability, LinkRow.condition).order_by(
            LinkRow.kind
        )
    ).all()
    assert [tuple(r) for r in rows] == [
        ("leads_to", "llm/not-yet-written", 0.3, "long prompts"),
        ("preceded_by", "llm/also-missing", None, None),
    ]
    assert repo.stats(session)["dangling_links"] == 2
    stored = repo.get_record(session, record_id=data["id"])
    assert stored is not None and stored.to_native() == data


def test_upsert_updates_skip_keeps_and_fail_refuses(session: Session) -> None:
    first = Record.model_validate(seed())
    assert put(session, first).counts()["added"] == 1
    assert put(session, first).counts() == {"added": 0, "updated": 0, "unchanged": 1, "skipped": 0}
    changed = first.model_copy(update={"root_cause": "A different explanation."})
    skipped = put(session, changed, on_conflict="skip")
    assert skipped.skipped == [first.id]
    assert repo.get_record(session, record_id=first.id).root_cause == first.root_cause  # type: ignore[union-attr]
    failed = put(session, changed, on_conflict="fail")
    assert failed.conflicts == [first.id]
    assert repo.get_record(session, record_id=first.id).root_cause == first.root_cause  # type: ignore[union-attr]
    updated = put(session, changed)
    assert updated.updated == [first.id]
    assert repo.get_record(session, record_id=first.id).root_cause == "A different explanation."  # type: ignore[union-attr]


def test_every_change_is_audited_with_before_and_after(session: Session) -> None:
    record = Record.model_validate(seed())
    version = repo.kb_version(session)
    put(session, record)
    put(session, record.model_copy(update={"fix_success_rate": 0.5}))
    rows = repo.audit_log(session, record_id=record.id)
    assert [r.action for r in rows] == ["update", "add"]
    assert rows[0].actor == "test"
    assert rows[0].before == {"fix_success_rate": 0.8}
    assert rows[0].after == {"fix_success_rate": 0.5}
    assert repo.kb_version(session) == version + 2


def test_unchanged_import_does_not_bump_the_change_counter(session: Session) -> None:
    record = Record.model_validate(seed())
    put(session, record)
    version = repo.kb_version(session)
    put(session, record)
    assert repo.kb_version(session) == version


def test_vote_counters_survive_an_update(session: Session) -> None:
    record = Record.model_validate(seed())
    put(session, record)
    row = session.scalars(select(WorkaroundRow).where(WorkaroundRow.record_id == record.id)).one()
    row.fixed_count = 7
    row.failed_count = 2
    session.flush()
    put(session, record.model_copy(update={"root_cause": "Edited."}))
    row = session.scalars(select(WorkaroundRow).where(WorkaroundRow.record_id == record.id)).one()
    assert (row.fixed_count, row.failed_count) == (7, 2)


def test_text_in_a_locale_with_english_fallback(session: Session) -> None:
    data = seed()
    data.pop("root_cause_zh")
    put(session, Record.model_validate(data))
    text = repo.record_text(session, record_id=data["id"], locale="zh-CN")
    assert text["signature"] == (data["signature_zh"], "zh")
    assert text["root_cause"] == (data["root_cause"], "en")
    assert text["workarounds"] == (data["workarounds_zh"], "zh")


def test_records_by_domain_and_by_confirmation_age(session: Session) -> None:
    old = Record.model_validate({**seed(), "id": "llm/old", "last_confirmed": "2023-01-01"})
    new = Record.model_validate({**seed(), "id": "llm/new", "last_confirmed": "2026-11-01"})
    other = Record.model_validate(
        {**seed(), "id": "web/x", "domain": "web", "last_confirmed": "2022-05-05"}
    )
    put(session, old, new, other)
    assert [r.id for r in repo.load_records(session, domain="llm")] == ["llm/new", "llm/old"]
    stale = repo.records_confirmed_before(session, before=date(2026, 6, 1))
    assert [rid for rid, _ in stale] == ["web/x", "llm/old"]
    assert [
        rid
        for rid, _ in repo.records_confirmed_before(session, before=date(2026, 6, 1), domain="llm")
    ] == ["llm/old"]


def test_delete_is_audited(session: Session) -> None:
    record = Record.model_validate(seed())
    put(session, record)
    assert repo.delete_record(session, record_id=record.id, actor="ana", now=NOW)
    assert repo.get_record(session, record_id=record.id) is None
    assert repo.audit_log(session, record_id=record.id)[0].before == record.to_native()
    assert session.scalar(select(func.count()).select_from(LinkRow)) == 0


def test_formats_yaml_jsonl_gz_and_folders(session: Session, tmp_path: Path) -> None:
    import yaml

    base = seed()
    variants = [{**base, "id": f"llm/variant-{i}"} for i in range(4)]
    (tmp_path / "a.yaml").write_text(
        yaml.safe_dump(variants[0], allow_unicode=True), encoding="utf-8"
    )
    (tmp_path / "b.jsonl").write_text(
        "\n".join(json.dumps(v) for v in variants[1:3]) + "\n", encoding="utf-8"
    )
    sub = tmp_path / "nested"
    sub.mkdir()
    (sub / "c.json.gz").write_bytes(gzip.compress(json.dumps([variants[3]]).encode()))
    (sub / "notes.txt").write_text("not a record file", encoding="utf-8")
    records = load_records([tmp_path])
    assert sorted(r.id for r in records) == [v["id"] for v in variants]
    assert put(session, *records).counts()["added"] == 4
    for variant in variants:
        stored = repo.get_record(session, record_id=variant["id"])
        assert stored is not None and stored.to_native() == variant


def test_one_bad_record_among_good_ones_is_named(tmp_path: Path) -> None:
    good = seed()
    bad = {**seed(), "id": "llm/broken", "confidence": "very"}
    (tmp_path / "good.json").write_text(json.dumps([good]), encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text(
        json.dumps({**good, "id": "llm/fine"}) + "\n" + json.dumps(bad) + "\n", encoding="utf-8"
    )
    result = read_records([tmp_path])
    [problem] = result.problems
    assert problem.file.endswith("bad.jsonl")
    assert problem.where == "line 2"
    assert problem.record_id == "llm/broken"
    assert problem.field == "confidence"
    assert "number" in problem.message


def test_duplicate_ids_and_unreadable_files_are_problems(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps([seed(), seed()]), encoding="utf-8")
    (tmp_path / "b.json").write_text("{not json", encoding="utf-8")
    messages = [f"{p.where} {p.field} {p.message}" for p in read_records([tmp_path]).problems]
    assert any("duplicate id" in m and "index 1" in m for m in messages)
    assert any("invalid JSON" in m for m in messages)
    missing = read_records([tmp_path / "nope.json"]).problems
    assert missing[0].message == "no such file or folder"


@pytest.mark.parametrize("fmt", ["native", "deadends"])
def test_forced_format_reads_the_item_that_way(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps(canon()), encoding="utf-8")
    result = read_records([path], fmt)  # type: ignore[arg-type]
    if fmt == "deadends":
        assert not result.problems
    else:
        assert {p.field for p in result.problems} >= {"signature", "regex", "domain"}


def test_records_table_matches_loaded_count(session: Session) -> None:
    put(session, *(Record.model_validate({**seed(), "id": f"llm/n{i}"}) for i in range(30)))
    assert session.scalar(select(func.count()).select_from(RecordRow)) == 30
    assert len(repo.load_records(session)) == 30
    assert session.scalar(select(func.count()).select_from(AuditRow)) == 30
