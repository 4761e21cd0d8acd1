from __future__ import annotations

import json

import pytest

from bot.ingest import load_records
from graph.build import build_graph
from graph.check import check_graph
from tests.conftest import DEADENDS, need_shared
from tests.graph.conftest import rec, to


def test_a_clean_symmetric_graph_passes() -> None:
    kg = build_graph(
        [
            rec("k/a", leads_to=[to("k/b", 0.5)], frequently_confused_with=["k/c"]),
            rec("k/b", preceded_by=[to("k/a", 0.5)]),
            rec("k/c", frequently_confused_with=["k/a"]),
            rec("k/lonely"),
        ]
    )
    report = check_graph(kg)
    assert report.strict_ok
    assert (report.dangling, report.one_sided, report.self_loops, report.cycles) == ((), (), (), ())
    assert report.orphans == ("k/lonely",)
    assert (report.components, report.largest_components) == (1, (3,))
    assert report.references == 4 and report.leads_to_edges == 1 and report.confusion_pairs == 1


def test_problems_are_found() -> None:
    kg = build_graph(
        [
            rec("k/a", leads_to=["k/b", "k/missing", "k/a"]),
            rec("k/b", leads_to=["k/a"], frequently_confused_with=["k/c"]),
            rec("k/c"),
        ]
    )
    report = check_graph(kg)
    assert not report.strict_ok
    assert [(d.source, d.target) for d in report.dangling] == [("k/a", "k/missing")]
    assert [(s.record_id, s.kind) for s in report.self_loops] == [("k/a", "leads_to")]
    assert {(o.source, o.kind, o.target, o.missing) for o in report.one_sided} == {
        ("k/a", "leads_to", "k/b", "preceded_by"),
        ("k/b", "leads_to", "k/a", "preceded_by"),
        ("k/b", "frequently_confused_with", "k/c", "frequently_confused_with"),
    }
    (cycle,) = report.cycles
    assert cycle.members == ("k/a", "k/b") and cycle.example[0] == cycle.example[-1]
    assert report.placeholders == 1
    assert json.loads(json.dumps(report.to_dict()))["strict_ok"] is False


def test_hubs_are_the_most_linked() -> None:
    spokes = [rec(f"s/{i:02}", leads_to=["s/hub"]) for i in range(12)]
    report = check_graph(build_graph([*spokes, rec("s/hub")]))
    assert [(h.id, h.in_degree) for h in report.hubs] == [("s/hub", 12)]


@pytest.mark.slow
def test_deadends_corpus_has_2610_references_none_dangling() -> None:
    kg = build_graph(load_records([need_shared(DEADENDS)]))
    report = check_graph(kg)
    assert len(kg.record_ids) == 2522
    assert report.references == 2610
    assert report.dangling == () and report.placeholders == 0
    assert report.strict_ok
