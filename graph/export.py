"""The transition graph for other tools: GraphML and JSON.

Both carry every node (``placeholder`` marks ids no record defines), every
curated ``leads_to`` edge (probability when stated, conditions, asserting
records) and every look-alike pair once (``kind`` ``frequently_confused_with``,
``symmetric``). Output is sorted, so the same graph always exports the same text.
"""

from __future__ import annotations

import io
import json
from typing import Any

import networkx as nx

from graph.build import CONFUSED, LEADS_TO, KnowledgeGraph

FORMATS = ("graphml", "json")


def graph_data(kg: KnowledgeGraph) -> dict[str, Any]:
    """The graph as plain JSON-ready data."""
    nodes = []
    for node_id in sorted([*kg.record_ids, *kg.placeholder_ids]):
        info = kg.node(node_id)
        nodes.append(
            {
                "id": node_id,
                "placeholder": info.placeholder,
                "signature": info.signature,
                "domain": info.domain,
            }
        )
    leads = [
        {
            "source": t.source,
            "target": t.target,
            "probability": t.probability,
            "conditions": list(t.conditions),
            "asserted_by": list(t.asserting_records),
        }
        for t in kg.transitions()
    ]
    confused = [
        {
            "source": c.first,
            "target": c.second,
            "distinctions": [{"record": rid, "text": text} for rid, text in c.distinctions],
            "asserted_by": sorted({ref.source for ref in c.asserted_by}),
        }
        for c in kg.confusions()
    ]
    return {"nodes": nodes, LEADS_TO: leads, CONFUSED: confused}


def to_json(kg: KnowledgeGraph) -> str:
    return json.dumps(graph_data(kg), ensure_ascii=False, indent=2) + "\n"


def to_graphml(kg: KnowledgeGraph) -> str:
    """GraphML: a directed multigraph; a look-alike pair is one edge marked ``symmetric``."""
    data = graph_data(kg)
    out = nx.MultiDiGraph()
    for node in data["nodes"]:
        attrs = {"placeholder": node["placeholder"]}
        attrs |= {k: node[k] for k in ("signature", "domain") if node[k] is not None}
        out.add_node(node["id"], **attrs)
    for edge in data[LEADS_TO]:
        attrs = {
            "kind": LEADS_TO,
            "symmetric": False,
            "conditions": "; ".join(edge["conditions"]),
            "asserted_by": " ".join(edge["asserted_by"]),
        }
        if edge["probability"] is not None:
            attrs["probability"] = float(edge["probability"])
        out.add_edge(edge["source"], edge["target"], key=LEADS_TO, **attrs)
    for edge in data[CONFUSED]:
        out.add_edge(
            edge["source"],
            edge["target"],
            key=CONFUSED,
            kind=CONFUSED,
            symmetric=True,
            conditions="; ".join(d["text"] for d in edge["distinctions"]),
            asserted_by=" ".join(edge["asserted_by"]),
        )
    buffer = io.BytesIO()
    nx.write_graphml(out, buffer, encoding="utf-8", prettyprint=True)
    return buffer.getvalue().decode("utf-8")


def export_graph(kg: KnowledgeGraph, fmt: str) -> str:
    if fmt == "graphml":
        return to_graphml(kg)
    if fmt == "json":
        return to_json(kg)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
