"""Property tests: queries never change the graph and always give the same answer."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.records import Record
from graph.build import KnowledgeGraph, build_graph
from graph.check import check_graph
from graph.draw import neighbourhood, render_tree
from graph.export import to_graphml, to_json
from graph.lookalike import look_alikes
from graph.triage import likely_causes, likely_next, order_errors, triage_sections

IDS = [f"p/{c}" for c in "abcdefgh"]
probabilities = st.one_of(st.none(), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]))
link = st.one_of(
    st.sampled_from(IDS + ["p/ghost"]),
    st.builds(lambda t, p: {"error_id": t, "probability": p}, st.sampled_from(IDS), probabilities),
)
links = st.fixed_dictionaries(
    {k: st.lists(link, max_size=3) for k in ("leads_to", "preceded_by", "frequently_confused_with")}
)


@st.composite
def graphs(draw: Any) -> list[Record]:
    ids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=len(IDS), unique=True))
    return [
        Record(id=i, signature=f"E: {i} failed", regex=i, domain="p", transition_graph=draw(links))
        for i in ids
    ]


def snapshot(kg: KnowledgeGraph) -> Any:
    return (
        sorted(kg._leads.nodes(data=True)),
        sorted((u, v, repr(d)) for u, v, d in kg._leads.edges(data=True)),
        sorted((min(u, v), max(u, v), repr(d)) for u, v, d in kg._confused.edges(data=True)),
        kg.references,
    )


def run_queries(kg: KnowledgeGraph, ids: list[str]) -> Any:
    out: list[Any] = [order_errors(kg, ids), triage_sections(kg, ids, locale="zh")]
    for node in ids:
        out += [likely_causes(kg, node, hops=4), likely_next(kg, node), look_alikes(kg, node)]
        if node in kg:
            out += [neighbourhood(kg, node), render_tree(kg, node), kg.centrality(node)]
    out += [check_graph(kg), to_json(kg), to_graphml(kg)]
    return out


@settings(max_examples=60, deadline=None)
@given(graphs(), st.lists(st.sampled_from(IDS + ["p/ghost", "p/unknown"]), max_size=5))
def test_queries_do_not_mutate_and_are_deterministic(
    records: list[Record], asked: list[str]
) -> None:
    kg = build_graph(records)
    before = snapshot(kg)
    first = run_queries(kg, asked)
    assert snapshot(kg) == before
    assert run_queries(kg, asked) == first
    assert run_queries(build_graph(list(reversed(records))), asked) == first


@settings(max_examples=60, deadline=None)
@given(graphs(), st.sampled_from(IDS), st.integers(min_value=1, max_value=5))
def test_cause_scores_are_probabilities_and_sorted(
    records: list[Record], node: str, hops: int
) -> None:
    causes = likely_causes(build_graph(records), node, hops=hops, top=100)
    assert all(0.0 <= c.score <= 1.0 and 1 <= c.hops <= hops for c in causes)
    assert all(c.path[-1] == node and c.id not in c.path[1:] for c in causes)
    assert [c.score for c in causes] == sorted((c.score for c in causes), reverse=True)
    assert node not in {c.id for c in causes}


@settings(max_examples=60, deadline=None)
@given(graphs(), st.lists(st.sampled_from(IDS), max_size=6))
def test_ordering_is_a_permutation(records: list[Record], asked: list[str]) -> None:
    ordering = order_errors(build_graph(records), asked)
    assert sorted(e.id for e in ordering.errors) == sorted(set(asked))
