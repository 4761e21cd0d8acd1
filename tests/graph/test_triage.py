from __future__ import annotations

import json

import networkx as nx
import pytest

from graph.build import KnowledgeGraph, build_graph
from graph.lookalike import look_alikes, text_difference
from graph.triage import likely_causes, likely_next, order_errors, triage_sections
from tests.graph.conftest import rec, to


def test_causes_score_the_best_path_not_the_shortest(chain: KnowledgeGraph) -> None:
    causes = likely_causes(chain, "t/leaf")
    assert [(c.id, c.hops, c.path) for c in causes] == [
        ("t/mid", 1, ("t/mid", "t/leaf")),
        ("t/root", 2, ("t/root", "t/mid", "t/leaf")),
        ("t/side", 1, ("t/side", "t/leaf")),
    ]
    assert causes[1].score == pytest.approx(0.72)  # 0.9 × 0.8 beats the direct 0.1


def test_causes_stop_at_the_hop_limit_and_top_n() -> None:
    kg = build_graph([rec(f"h/{i}", leads_to=[to(f"h/{i + 1}", 0.9)]) for i in range(6)])
    assert [c.id for c in likely_causes(kg, "h/6")] == ["h/5", "h/4", "h/3"]
    assert [c.id for c in likely_causes(kg, "h/6", hops=5, top=2)] == ["h/5", "h/4"]
    assert likely_causes(kg, "h/6", hops=5)[-1].score == pytest.approx(0.9**5)


def test_cycles_do_not_loop_and_never_list_the_error_itself() -> None:
    kg = build_graph(
        [
            rec("c/a", leads_to=[to("c/b", 1.0), to("c/a", 1.0)]),
            rec("c/b", leads_to=[to("c/c", 1.0)]),
            rec("c/c", leads_to=[to("c/a", 1.0)]),
        ]
    )
    causes = likely_causes(kg, "c/a", hops=50)
    assert [(c.id, c.hops) for c in causes] == [("c/c", 1), ("c/b", 2)]
    assert [n.id for n in likely_next(kg, "c/a")] == ["c/b"]  # the self-loop is not "next"


def test_placeholders_take_part_and_are_marked() -> None:
    kg = build_graph([rec("p/x", preceded_by=[to("p/ghost", 0.4)], leads_to=["p/later"])])
    (cause,) = likely_causes(kg, "p/x")
    assert cause.id == "p/ghost" and cause.placeholder
    assert likely_causes(kg, "p/ghost") == ()
    assert [(n.id, n.placeholder) for n in likely_next(kg, "p/x")] == [("p/later", True)]


def test_next_errors_come_with_probability_and_condition(chain: KnowledgeGraph) -> None:
    (nxt,) = likely_next(chain, "t/mid")
    assert (nxt.id, nxt.probability, nxt.conditions) == ("t/leaf", 0.8, ("after a retry",))
    assert [n.id for n in likely_next(chain, "t/root")] == ["t/mid", "t/leaf"]
    assert likely_next(chain, "no/such") == () and likely_causes(chain, "no/such") == ()


def test_look_alikes_say_what_differs() -> None:
    kg = build_graph(
        [
            rec(
                "l/disk",
                "OSError: [Errno 28] No space left on device",
                frequently_confused_with=["l/quota"],
            ),
            rec("l/quota", "OSError: [Errno 122] Disk quota exceeded"),
        ]
    )
    (alike,) = look_alikes(kg, "l/disk")
    assert alike.distinctions == ()
    assert alike.difference is not None and alike.difference.field == "signature"
    assert alike.difference.this_only == ("28", "No space left on device")
    assert alike.difference.other_only == ("122", "Disk quota exceeded")


def test_text_difference_falls_back_to_nothing_for_equal_text() -> None:
    assert text_difference("same text", "same text") == ((), ())


def test_three_errors_are_ordered_cause_first_whatever_the_paste_order(
    chain: KnowledgeGraph,
) -> None:
    ordering = order_errors(chain, ["t/leaf", "t/mid", "t/root"])
    assert [e.id for e in ordering.errors] == ["t/root", "t/mid", "t/leaf"]
    assert ordering.fix_first == "t/root" and ordering.related
    leaf = ordering.errors[-1]
    assert leaf.position == 0 and leaf.after == ("t/mid", "t/root")


def test_unrelated_errors_keep_paste_order_and_duplicates_collapse(chain: KnowledgeGraph) -> None:
    ordering = order_errors(chain, ["x/one", "t/side", "x/two", "x/one"])
    assert [e.id for e in ordering.errors] == ["x/one", "t/side", "x/two"]
    assert ordering.fix_first == "x/one" and not ordering.related
    assert order_errors(chain, []).fix_first is None


def test_mutual_links_are_settled_by_the_stronger_path() -> None:
    kg = build_graph([rec("m/a", leads_to=[to("m/b", 0.2)]), rec("m/b", leads_to=[to("m/a", 0.7)])])
    assert [e.id for e in order_errors(kg, ["m/a", "m/b"]).errors] == ["m/b", "m/a"]
    even = build_graph([rec("m/a", leads_to=["m/b"]), rec("m/b", leads_to=["m/a"])])
    assert [e.id for e in order_errors(even, ["m/b", "m/a"]).errors] == ["m/b", "m/a"]


def test_a_three_cycle_is_broken_by_paste_position() -> None:
    kg = build_graph(
        [rec("r/a", leads_to=["r/b"]), rec("r/b", leads_to=["r/c"]), rec("r/c", leads_to=["r/a"])]
    )
    assert [e.id for e in order_errors(kg, ["r/b", "r/c", "r/a"], hops=1).errors] == [
        "r/b",
        "r/c",
        "r/a",
    ]


def test_pagerank_matches_networkx(chain: KnowledgeGraph) -> None:
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    expected = _pagerank_python(chain._leads, weight="w")
    for node, value in expected.items():
        assert chain.centrality(node).pagerank == pytest.approx(value, abs=1e-5)
    ranked = sorted(chain.centralities().values(), key=lambda c: c.rank)
    assert ranked[0].id == "t/leaf" and ranked[0].in_degree == 3
    assert chain.centrality("t/root").degree == 2


def test_triage_sections_are_plain_json(chain: KnowledgeGraph) -> None:
    sections = triage_sections(chain, ["t/leaf", "t/root"], locale="zh")
    assert set(sections) == {"causes", "next", "confused_with", "order"}
    assert json.loads(json.dumps(sections)) == json.loads(json.dumps(sections, default=str))
    assert sections["order"]["fix_first"] == "t/root"
    assert sections["causes"][0]["items"][0]["label"] == "Error: t/mid"
    assert not any(isinstance(v, nx.Graph) for v in sections.values())


def test_triage_labels_use_the_locale() -> None:
    kg = build_graph(
        [rec("z/a", "MemoryError", signature_zh="内存错误", leads_to=["z/b"]), rec("z/b")]
    )
    causes = triage_sections(kg, ["z/b"], locale="zh")["causes"][0]["items"]
    assert causes[0]["label"] == "内存错误"
