"""Records kept packed by the index and the graph come back as they were, and a snapshot
holds them as the index had them."""

from __future__ import annotations

import logging
import pickle
from dataclasses import FrozenInstanceError
from pathlib import Path
from unittest.mock import patch

import pytest

from bot import snapshot
from bot.match.frozen import restore
from bot.match.index import MatchIndex
from bot.match.info import RecordInfo
from bot.records import Record
from bot.records.packed import PackedRecords, pack, unpack
from graph.build import build_graph, relink_graph
from tests.match.conftest import SMALL


def test_an_unpacked_record_equals_the_one_packed_and_exports_the_same() -> None:
    odd = SMALL[0].model_copy(update={"root_cause": "half a pair \ud800 of surrogates"})
    for record in [*SMALL, odd]:
        back = unpack(pack(record))
        assert back == record
        assert back.to_native() == record.to_native()


def test_packed_records_change_without_touching_the_others() -> None:
    packed = PackedRecords.of(SMALL)
    edited = SMALL[1].model_copy(update={"root_cause": "Changed."})
    changed = packed.changed([edited], removed=[SMALL[2].id])
    assert changed[SMALL[1].id].root_cause == "Changed." and SMALL[2].id not in changed
    assert packed[SMALL[1].id] == SMALL[1] and SMALL[2].id in packed
    assert changed.get_packed(SMALL[0].id) is packed.get_packed(SMALL[0].id)


def test_the_index_and_graph_give_back_the_records_they_were_built_of() -> None:
    records = sorted(SMALL, key=lambda r: r.id)
    index = MatchIndex.build(records)
    graph = build_graph(records, packed=index.packed_records())
    assert list(index.records) == records
    assert [index.record(r.id) for r in records] == records
    assert [graph.record(r.id) for r in records] == records
    assert index.record("no/such/record") is None and graph.record("no/such/record") is None


def test_a_snapshot_relinks_the_same_index_and_graph(tmp_path: Path) -> None:
    records = sorted(SMALL, key=lambda r: r.id)
    index = MatchIndex.build(records)
    graph = build_graph(records, packed=index.packed_records())
    path = tmp_path / "knowledge.pickle"
    snapshot.save(path, snapshot.Snapshot(3, index.parts, index.vocabulary, graph.said()))
    saved = snapshot.load(path)
    assert saved is not None and saved.version == 3
    again = MatchIndex(saved.parts, saved.vocabulary)
    relinked = relink_graph(again.packed_records(), saved.references)
    assert list(again.records) == records
    for record in records:
        assert again.triage(record.signature) == index.triage(record.signature)
    assert list(relinked.transitions()) == list(graph.transitions())
    assert relinked.references == graph.references


def test_a_snapshot_keeps_what_the_index_linked_and_answers_as_the_index_did(
    tmp_path: Path,
) -> None:
    """The links come back for the parts read with them (not copies of them), with empty
    caches, whether the index was built or updated from another (postings of the last
    build and of the changes since)."""
    records = sorted(SMALL, key=lambda r: r.id)
    built = MatchIndex.build(records[:-1], segment_size=2)
    edited = records[0].model_copy(update={"root_cause": "Changed."})
    updated = built.update([edited, records[-1]], removed=[records[1].id])
    for index in (built, updated):
        for record in records:
            index.triage(record.signature)  # what a serving index has cached by then
        graph = build_graph(list(index.records), packed=index.packed_records())
        path = tmp_path / "knowledge.pickle"
        taken = snapshot.Snapshot(3, index.parts, index.vocabulary, graph.said(), index.links)
        snapshot.save(path, taken)
        saved = snapshot.load(path)
        assert saved is not None and saved.links is not None
        again = MatchIndex(saved.parts, saved.vocabulary, links=saved.links)
        assert again._segments[0].parts[0] is saved.parts[0]
        assert again._segments[-1].info[-1] is saved.parts[-1].info
        assert not again.similarity._kept and not again.context.idf
        assert len(again._segments) == len(index._segments) > 1
        for record in records:
            assert again.triage(record.signature) == index.triage(record.signature)
            assert again.search(record.signature) == index.search(record.signature)


def test_a_snapshot_an_earlier_errkb_wrote_is_ignored_with_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "knowledge.pickle"
    path.write_bytes(pickle.dumps(("an earlier code key", {"records": []}), protocol=5))
    caplog.set_level(logging.INFO)
    assert snapshot.load(path) is None
    assert [r.getMessage() for r in caplog.records] == [
        f"ignoring a knowledge snapshot written by another errkb version: {path}"
    ]


def test_records_of_the_index_are_a_sequence() -> None:
    index = MatchIndex.build(sorted(SMALL, key=lambda r: r.id))
    assert len(index.records) == len(SMALL)
    assert [r.id for r in index.records[1:3]] == [
        r.id for r in sorted(SMALL, key=lambda r: r.id)[1:3]
    ]
    assert isinstance(index.records[0], Record)


def test_the_parts_pickle_as_their_values_and_come_back_equal_without_init() -> None:
    """A snapshot's parts are restored field by field from a tuple of their values: none
    goes through ``__init__`` again (RecordInfo's interning ran when it was made) or
    through the field look-ups of a dataclass ``__setstate__``."""
    index = MatchIndex.build(sorted(SMALL, key=lambda r: r.id))
    part = next(p for p in index.parts if p.branches)
    objects = [part, part.info, part.branches[0]]
    for made in objects:
        function, (cls, values) = made.__reduce__()
        assert function is restore and cls is type(made)
        assert values == tuple(getattr(made, name) for name in cls.__slots__)
    with patch.object(RecordInfo, "__post_init__", side_effect=AssertionError("re-made")):
        back = pickle.loads(pickle.dumps(objects, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == objects and [type(b) for b in back] == [type(m) for m in objects]
    with pytest.raises(FrozenInstanceError):
        back[1].domain = "changed"  # type: ignore[misc]
