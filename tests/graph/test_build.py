from __future__ import annotations

from graph.build import DEFAULT_PROBABILITY, build_graph
from graph.lookalike import look_alikes
from tests.graph.conftest import rec, to


def test_a_node_per_record_and_a_placeholder_per_missing_id() -> None:
    kg = build_graph([rec("a/x", leads_to=["a/ghost"], frequently_confused_with=["a/twin"])])
    assert kg.record_ids == ("a/x",)
    assert kg.placeholder_ids == ("a/ghost", "a/twin")
    assert kg.is_placeholder("a/ghost") and not kg.is_placeholder("a/x")
    assert kg.node("a/ghost").signature is None
    assert kg.label("a/ghost") == "a/ghost"


def test_leads_to_and_preceded_by_merge_into_one_edge() -> None:
    kg = build_graph(
        [
            rec("a/x", leads_to=[to("a/y", 0.3, "on Linux")]),
            rec("a/y", preceded_by=[to("a/x", 0.6, "on macOS"), to("a/x", None, "on Linux")]),
        ]
    )
    assert kg.edge_count == 1
    t = kg.transition("a/x", "a/y")
    assert t is not None
    assert t.probability == 0.6
    assert t.conditions == ("on Linux", "on macOS")
    assert t.asserting_records == ("a/x", "a/y")
    assert {(r.source, r.kind) for r in t.asserted_by} == {
        ("a/x", "leads_to"),
        ("a/y", "preceded_by"),
    }
    assert kg.transition("a/y", "a/x") is None


def test_plain_ids_and_objects_without_probability_use_the_default_weight() -> None:
    kg = build_graph([rec("a/x", leads_to=["a/y"]), rec("a/y")])
    t = kg.transition("a/x", "a/y")
    assert t is not None and t.probability is None and t.weight == DEFAULT_PROBABILITY


def test_confusion_is_symmetric_and_separate_from_leads_to() -> None:
    kg = build_graph(
        [
            rec(
                "a/x", frequently_confused_with=[{"error_id": "a/y", "distinction": "x is on disk"}]
            ),
            rec("a/y"),
        ]
    )
    assert kg.edge_count == 0 and kg.confusion_count == 1
    assert [la.id for la in look_alikes(kg, "a/x")] == ["a/y"]
    assert [la.id for la in look_alikes(kg, "a/y")] == ["a/x"]
    assert look_alikes(kg, "a/y")[0].distinctions == ("x is on disk",)


def test_both_sides_of_a_confusion_make_one_pair() -> None:
    kg = build_graph(
        [rec("a/x", frequently_confused_with=["a/y"]), rec("a/y", frequently_confused_with=["a/x"])]
    )
    assert kg.confusion_count == 1
    (pair,) = kg.confusions()
    assert (pair.first, pair.second) == ("a/x", "a/y") and pair.other("a/x") == "a/y"


def test_building_does_not_depend_on_record_order() -> None:
    records = [
        rec("a/x", leads_to=[to("a/y", 0.3)]),
        rec("a/y", preceded_by=[to("a/x", 0.6)], leads_to=["a/z"]),
    ]
    one = build_graph(records)
    two = build_graph(list(reversed(records)))
    assert list(one.transitions()) == list(two.transitions())
    assert one.references == two.references
