"""The transition graph: build it from records, check it, query it, draw it.

- :mod:`graph.build`: records → :class:`~graph.build.KnowledgeGraph`;
- :mod:`graph.check`: the report of ``errkb graph check``;
- :mod:`graph.triage`, :mod:`graph.lookalike`, :mod:`graph.centrality`: pure queries;
- :mod:`graph.observe`: which transitions a sighting implies (learning from use);
- :mod:`graph.draw`, :mod:`graph.picture`: text tree and PNG; :mod:`graph.export`;
- :mod:`graph.labels`: breaking label text between words and CJK characters;
- :mod:`graph.said`: a link's conditions and distinctions in a reader's locale;

networkx stays inside this package; callers get frozen dataclasses and plain
data. Nothing here touches the database, Slack or the clock.
"""
