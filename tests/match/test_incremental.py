"""An index (and graph) updated with a few changed records answers exactly as one built from
scratch on the same records, and shares the unchanged records' parts with the old index."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.ingest import load_records
from bot.match.index import SEGMENT, MatchIndex
from bot.records import Record
from graph.build import KnowledgeGraph, build_graph
from tests.match.conftest import DEADENDS

DATA = Path(__file__).resolve().parents[2] / "data"


def _starter() -> list[Record]:
    return sorted(load_records(sorted(DATA.glob("*.json"))), key=lambda r: r.id)


def _edited(rng: random.Random, record: Record, others: list[Record], number: int) -> Record:
    """``record`` changed the ways maintainers change records: its signature, regex,
    root cause, tags or transition-graph links."""
    other = rng.choice(others)
    word = f"edit{number}marker"
    kind = rng.randrange(5)
    if kind == 0:
        update = {"signature": f"{record.signature} {word}", "regex": f"{record.regex}|{word}"}
    elif kind == 1:
        update = {"regex": other.regex, "signature": other.signature}  # becomes a look-alike
    elif kind == 2:
        update = {"root_cause": f"{other.root_cause} {word}", "tags": [*record.tags, word]}
    elif kind == 3:
        links = record.transition_graph.model_dump()
        links["leads_to"] = [*links["leads_to"], other.id, f"{record.domain}/missing-{number}/x"]
        links["frequently_confused_with"] = [
            *links["frequently_confused_with"],
            rng.choice(others).id,
        ]
        update = {"transition_graph": links}
    else:
        update = {"regex": re.escape(other.signature.splitlines()[0][:40]) + f"|{word}"}
    return Record.model_validate({**record.model_dump(), **update})


def _new(rng: random.Random, template: Record, number: int) -> Record:
    parts = template.id.split("/")
    return Record.model_validate(
        {
            **template.model_dump(),
            "id": f"{parts[0]}/added-{number}/{parts[-1]}",
            "signature": f"AddedError{number}: {template.signature}",
            "regex": f"AddedError{number}|{template.regex}",
        }
    )


def _rounds(
    records: list[Record], seed: int, rounds: int = 3
) -> Iterator[tuple[list[Record], list[str]]]:
    """(upserted, removed) for each round of random edits, removals and additions; ``records``
    is kept as the current set."""
    rng = random.Random(seed)
    number = 0
    for _ in range(rounds):
        current = {r.id: r for r in records}
        ids = sorted(current)
        removed = rng.sample(ids, k=min(3, len(ids) // 10))
        left = [i for i in ids if i not in removed]
        upserted = []
        for record_id in rng.sample(left, k=min(5, len(left))):
            number += 1
            upserted.append(_edited(rng, current[record_id], records, number))
        for _ in range(3):
            number += 1
            upserted.append(_new(rng, current[rng.choice(left)], number))
        for record_id in removed:
            del current[record_id]
        current.update({r.id: r for r in upserted})
        records[:] = sorted(current.values(), key=lambda r: r.id)
        yield upserted, removed


def _pastes(records: list[Record]) -> list[str]:
    pastes = [p.read_text(encoding="utf-8") for p in sorted((DATA / "examples").glob("*.txt"))]
    pastes += [r.signature for r in records]
    pastes += [
        f'Traceback (most recent call last):\n  File "x.py", line 3\n{a.signature}\n{b.signature}'
        for a, b in zip(records[::7], records[3::7], strict=False)
    ]
    return pastes


def _same_graph(updated: KnowledgeGraph, fresh: KnowledgeGraph) -> None:
    assert updated.record_ids == fresh.record_ids
    assert updated.placeholder_ids == fresh.placeholder_ids
    assert list(updated.transitions()) == list(fresh.transitions())
    assert list(updated.confusions()) == list(fresh.confusions())
    assert updated.references == fresh.references
    assert updated.centralities() == fresh.centralities()


def _check(
    records: list[Record],
    seed: int,
    pastes_every: int = 1,
    segment_size: int = SEGMENT,
) -> None:
    records = sorted(records, key=lambda r: r.id)
    index = MatchIndex.build(records, segment_size=segment_size)
    graph = build_graph(records)
    for upserted, removed in _rounds(records, seed):
        old = index
        index = index.update(upserted, removed)
        graph = graph.update(upserted, removed)
        graph.centralities()
        fresh = MatchIndex.build(records)
        assert [r.id for r in index.records] == [r.id for r in fresh.records]
        kept = {p.record.id: p for p in old.parts}
        changed = {r.id for r in upserted}
        assert all(p is kept[p.record.id] for p in index.parts if p.record.id not in changed), (
            "an unchanged record's parts are shared, not computed again"
        )
        for paste in _pastes(records)[::pastes_every]:
            assert index.triage(paste) == fresh.triage(paste), paste[:80]
        for words in ("memory", "connection refused", "显存", "added"):
            assert index.search(words) == fresh.search(words)
        assert index.variant_groups() == fresh.variant_groups()
        _same_graph(graph, build_graph(records))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_updated_index_answers_as_one_built_from_scratch(seed: int) -> None:
    _check(_starter(), seed)


@pytest.mark.slow
def test_an_updated_deadends_index_answers_as_one_built_from_scratch() -> None:
    if not DEADENDS.exists():
        pytest.skip("../shared corpora not present")
    _check(load_records([DEADENDS]), seed=7, pastes_every=25)


@pytest.mark.slow
@pytest.mark.parametrize("segment_size", [1, 7])
def test_an_index_cut_in_small_segments_answers_as_one_of_a_single_segment(
    segment_size: int,
) -> None:
    """Where the prefilter is cut, and which segments an update rebuilds, split or empties,
    changes nothing a paste gets (the fresh index compared with is one segment)."""
    _check(_starter(), seed=4, segment_size=segment_size)


@pytest.mark.slow
def test_a_deadends_index_in_segments_answers_as_one_of_a_single_segment() -> None:
    if not DEADENDS.exists():
        pytest.skip("../shared corpora not present")
    _check(load_records([DEADENDS]), seed=8, pastes_every=25, segment_size=97)


def test_the_old_index_keeps_answering_as_before_an_update() -> None:
    records = _starter()
    index = MatchIndex.build(records)
    paste = records[0].signature
    before = index.triage(paste)
    index.update([], [records[0].id])
    assert index.triage(paste) == before and index.record(records[0].id) is not None


@pytest.mark.slow
def test_variant_groups_follow_records_joining_leaving_and_coming_before_them() -> None:
    """A record given another's signature and domain joins its group, and leaves it when
    changed back; a group loses its first member; a new record sorting first moves every
    group; two records raising one message under other names of its kind join and part:
    the updated index groups as a fresh one at each step."""
    records = _starter()
    a = records[3]
    b = records[10]
    c = records[20]

    def like(record: Record, other: Record) -> Record:
        return record.model_copy(update={"signature": other.signature, "domain": other.domain})

    def said(record: Record, signature: str) -> Record:
        return record.model_copy(update={"signature": signature})

    first = like(records[5], a).model_copy(update={"id": "aaa/first-of-all/x"})
    steps: list[tuple[list[Record], list[str]]] = [
        ([like(b, a)], []),
        ([like(c, a)], []),
        ([b], []),
        ([], [a.id]),
        ([first], []),
        ([like(b, c)], [first.id]),
        ([a, like(first, b)], [c.id]),
        ([said(records[30], "RuntimeError: the widget cache was lost during a reload")], []),
        ([said(records[40], "widget.CacheError: the widget cache was lost during a reload.")], []),
        ([records[30]], []),
    ]
    current = {r.id: r for r in records}
    index = MatchIndex.build(records, segment_size=7)
    grouped = []
    for upserted, removed in steps:
        index = index.update(upserted, removed)
        for record_id in removed:
            del current[record_id]
        current.update({r.id: r for r in upserted})
        fresh = MatchIndex.build(sorted(current.values(), key=lambda r: r.id))
        assert index.groups == fresh.groups
        assert index.variant_groups() == fresh.variant_groups()
        grouped.append(len(index.variant_groups()))
    assert grouped[:2] == [1, 1] and 0 in grouped, grouped
    assert grouped[-2] == grouped[-3] + 1 == grouped[-1] + 1, grouped


def test_graph_nodes_turn_into_placeholders_and_back_as_a_fresh_build_does() -> None:
    """A missing id that becomes a record, a record removed while others still point at it,
    a placeholder nobody points at any more, links that change PageRank and links that do
    not: each updated graph equals the graph built from the same records."""
    from tests.graph.conftest import rec, to

    records = [
        rec("t/a", leads_to=[to("t/ghost", 0.4), "t/b"], frequently_confused_with=["t/c"]),
        rec("t/b", preceded_by=[to("t/a", 0.7)]),
        rec("t/c", leads_to=[to("t/b", 0.2)]),
    ]
    steps: list[tuple[list[Record], list[str]]] = [
        ([rec("t/ghost", leads_to=["t/c"])], []),
        ([], ["t/b"]),
        ([rec("t/a", frequently_confused_with=["t/c", "t/gone"])], []),
        ([rec("t/a", frequently_confused_with=["t/c", "t/gone"])], []),
        ([rec("t/b", preceded_by=[to("t/c", 0.9)])], ["t/ghost"]),
        ([], ["t/a", "t/c"]),
    ]
    current = {r.id: r for r in records}
    graph = build_graph(records)
    for upserted, removed in steps:
        graph = graph.update(upserted, removed)
        for record_id in removed:
            del current[record_id]
        current.update({r.id: r for r in upserted})
        fresh = build_graph(current.values())
        _same_graph(graph, fresh)
        assert graph.node_ids == fresh.node_ids and len(graph) == len(fresh)
        assert list(graph.centralities().values()) == list(fresh.centralities().values())


def _bm25_steps(
    rng: random.Random,
    words: list[str],
    steps: list[tuple[list[int], list[int]]],
    fold: tuple[float, int],
) -> None:
    from bot.match import similarity
    from bot.match.similarity import Similarity, Vocabulary, joined

    similarity.FOLD_SHARE, similarity.FOLD_LEAST = fold
    docs = [
        {w: float(rng.randint(1, 3)) for w in rng.sample(words, rng.randint(1, 5))}
        for _ in range(30)
    ]
    vocabulary = Vocabulary()
    encoded = [vocabulary.encode(d) for d in docs]
    index = Similarity.from_arrays(joined(encoded), vocabulary)
    for number, (removed, added) in enumerate(steps):
        before = encoded
        kept = [d for n, d in enumerate(docs) if n not in removed]
        for at in added:
            new = {w: float(rng.randint(1, 3)) * 0.6 for w in rng.sample(words, 6)} | {
                f"new{number}": 2.0
            }
            kept.insert(at, new if at % 4 else {})
        docs = kept
        encoded = [vocabulary.encode(d) for d in docs]
        runs = [joined(encoded[i : i + 7]) for i in range(0, len(encoded), 7)]
        index = index.update(runs, encoded, before, (), removed, added)
        fresh = Similarity.from_docs(docs, keep_terms=False)
        for term in [*words, *(f"new{n}" for n in range(len(steps)))]:
            assert index.scores([term]).tolist() == fresh.scores([term]).tolist(), term
        for query in (words[:3], words[2:9], words):
            assert index.scores(query).tolist() == fresh.scores(query).tolist()
            assert (
                index.scores(query, normalised=False).tolist()
                == fresh.scores(query, normalised=False).tolist()
            )
        assert index.doc_weight == fresh.doc_weight and index.size == fresh.size == len(docs)
        assert index.self_score.tolist() == fresh.self_score.tolist()


@pytest.mark.parametrize(
    "fold", [(0.05, 512), (0.1, 2)], ids=["delta", "folded-often-nothing-kept"]
)
def test_an_updated_bm25_index_scores_as_one_built_from_scratch(
    fold: tuple[float, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents taken out and put in at the front, middle and end, an empty one, terms no
    document had before and terms no document keeps, changes kept apart from the last full
    build's postings or folded into a new one: every query scores the same documents the
    same as in an index built from the final documents, bit for bit, whether the weighted
    postings of the terms queries met are kept or not."""
    from bot.match import similarity

    monkeypatch.setattr(similarity, "FOLD_SHARE", similarity.FOLD_SHARE)
    monkeypatch.setattr(similarity, "FOLD_LEAST", similarity.FOLD_LEAST)
    monkeypatch.setattr(
        similarity, "CACHED_SHARE", 0.25 if fold[1] > 2 else 0.0
    )  # weighted terms kept, or not
    words = "disk full cuda memory socket refused 显存 不足 retry token expired lock".split()
    steps = [([0, 7, 29], [0, 5, 27, 28]), ([3], [3, 4, 29, 30]), ([1, 2, 31], []), ([], [1, 9])]
    _bm25_steps(random.Random(11), words, steps, fold)
    rng = random.Random(5)
    size = 30
    many = []
    for _ in range(12):  # random edits, arrivals and removals
        removed = sorted(rng.sample(range(size), rng.randint(0, 3)))
        count = rng.randint(0, 3)
        added = sorted(rng.sample(range(size - len(removed) + count), count))
        many.append((removed, added))
        size += len(added) - len(removed)
    _bm25_steps(rng, words, many, fold)


@pytest.mark.parametrize("fold_least", [2, 256])
def test_a_layered_table_reads_as_the_dict_it_stands_for(
    fold_least: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder tables an update changes a few keys of, kept apart or folded in: each
    version reads as a plain dict with the same changes, and older versions stay as they were."""
    from bot.match import variants
    from bot.match.variants import Layered

    monkeypatch.setattr(variants, "FOLD_LEAST", fold_least)
    rng = random.Random(3)
    model = {f"k{n}": f"r{n}" for n in range(40)}
    table = Layered(dict(model))
    history = [(table, dict(model))]
    for _ in range(30):
        changes: dict[str, str | None] = {}
        for _ in range(rng.randint(1, 4)):
            key = f"k{rng.randint(0, 60)}"
            changes[key] = None if rng.random() < 0.3 else f"r{rng.randint(0, 99)}"
        table = table.changed(changes)
        for key, value in changes.items():
            if value is None:
                model.pop(key, None)
            else:
                model[key] = value
        history.append((table, dict(model)))
    for version, expected in history:
        assert dict(version) == expected and len(version) == len(expected)
        assert all(version.get(f"k{n}") == expected.get(f"k{n}") for n in range(61))
