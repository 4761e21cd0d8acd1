"""Records read back from the store are exactly the records that went in.

The store builds records without validating them again (``trusted_record``);
these tests hold that shortcut equal to full validation, field sets included
(they decide what an export writes), on every record errkb ships, the suite's
fixtures and, when present, the whole deadends corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy.orm import Session

from bot.ingest import load_records as read_files
from bot.records import Record
from bot.starter import starter_dir
from bot.store import repository as repo
from bot.store.convert import child_values, record_data, record_values, trusted_record
from tests.conftest import DEADENDS, FIXTURES, need_shared
from tests.store.test_repository import NOW


def _shape(value: Any) -> Any:
    """Everything equality ignores but serialisation uses: types and the fields each model was given."""
    if isinstance(value, BaseModel):
        return (
            type(value).__name__,
            sorted(value.model_fields_set),
            {k: _shape(v) for k, v in value},
            _shape(value.__pydantic_extra__ or {}),
        )
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return (type(value).__name__, value)


def _data(record: Record) -> dict[str, Any]:
    """What the store hands the record builder, without a database in between."""
    rows = child_values(record)
    row = {**record_values(record), "id": record.id}
    links = sorted(rows["links"], key=lambda r: (r["kind"], r["position"]))
    return record_data(
        row, rows["record_translations"], rows["workarounds"], rows["dead_ends"], links
    )


def _corpora() -> list[Any]:
    return [
        pytest.param(lambda: read_files([starter_dir()]), id="starter"),
        pytest.param(
            lambda: read_files([FIXTURES / "seed.json", FIXTURES / "deadends-canon.json"]),
            id="fixtures",
        ),
        pytest.param(
            lambda: read_files([need_shared(DEADENDS)]), id="deadends", marks=pytest.mark.shared
        ),
    ]


@pytest.mark.parametrize("records", _corpora())
def test_the_trusted_build_equals_validation_field_sets_included(records: Any) -> None:
    for record in records():
        data = _data(record)
        built = trusted_record(data)
        validated = Record.model_validate(data)
        assert built == validated == record, record.id
        assert _shape(built) == _shape(validated), record.id
        assert built.to_native() == record.to_native(), record.id


def test_items_given_few_keys_get_their_defaults_as_validation_gives_them() -> None:
    """Defaults are filled in by the store's own builder (not pydantic's per-call lookup):
    the same values, in field order, each one a fresh object."""
    sparse = Record.model_validate(
        {
            "id": "py/sparse",
            "signature": "E: x",
            "regex": "E: x",
            "domain": "py",
            "team": "core",
            "versions": [{"version": "1.0"}],
            "workarounds": [{"action": "a"}, {"action": "b", "how": "h"}],
            "dead_ends": [{"why_fails": "w"}],
            "transition_graph": {"leads_to": [{"error_id": "py/next"}, "py/other"], "note": "kept"},
        }
    )
    built = trusted_record(_data(sparse))
    validated = Record.model_validate(_data(sparse))
    assert built == validated == sparse
    assert _shape(built) == _shape(validated)
    assert [list(dict(w)) for w in built.workarounds] == [
        list(dict(w)) for w in validated.workarounds
    ]
    assert list(dict(built)) == list(dict(validated))
    first, second = built.workarounds
    first.sources.append("https://example.org")
    assert second.sources == [] and trusted_record(_data(sparse)).workarounds[0].sources == []


def test_loaded_records_equal_what_was_imported_and_validate_again(
    session: Session, tmp_path: Path
) -> None:
    records = read_files([starter_dir(), FIXTURES / "deadends-canon.json"])
    repo.import_records(session, records=records, on_conflict="upsert", actor="test", now=NOW)
    loaded = repo.load_records(session, ids=[r.id for r in records])
    assert [r.id for r in loaded] == sorted(r.id for r in records)
    by_id = {r.id: r for r in records}
    for record in loaded:
        assert record == by_id[record.id]
        assert record.to_native() == by_id[record.id].to_native()
        assert _shape(record) == _shape(Record.model_validate(record.to_native()))


def test_loading_some_ids_and_one_domain_reads_only_those(session: Session) -> None:
    records = read_files([starter_dir()])
    repo.import_records(session, records=records, on_conflict="upsert", actor="test", now=NOW)
    wanted = sorted(r.id for r in records)[::7]
    assert [r.id for r in repo.load_records(session, ids=[*wanted, "no/such-record"])] == wanted
    domain = records[0].domain
    assert {r.domain for r in repo.load_records(session, domain=domain)} == {domain}
