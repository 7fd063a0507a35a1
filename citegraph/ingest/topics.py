"""OpenAlex's topic tree on the streaming write path: the rows of the writer's statements.

A paper's :class:`~citegraph.ingest.records.TopicLink` carries the path from its domain
down to the topic, so the tree is built from the works themselves (no separate topics file
to load first) and every write path derives the same ``:Topic`` nodes, ``BROADER_TOPIC``
links and ``IN_TOPIC`` edges from it (the bulk build: ``sql/build.sql``). Both merge as the Cypher does: a node's
properties as ``SET t += props`` leaves them (later non-null values win), its parent the
last one given, an ``IN_TOPIC`` the last properties given for its (paper, topic) pair.
Kept apart from :mod:`citegraph.ingest.writer` so that the tree is one module's business.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..graph import model
from .records import Paper


def topic_rows(papers: Iterable[Paper]) -> list[dict]:
    """``ingest/topics`` rows for the tree nodes the papers name, each once, parents first."""
    node = model.GRAPH.node("Topic")
    rows: dict[str, dict] = {}
    for paper in papers:
        for link in paper.topics:
            for topic in link.lineage:
                row = rows.setdefault(topic.id, {"id": topic.id, "props": {}, "broader": None})
                row["props"].update(node.values(topic))
                row["broader"] = topic.broader or row["broader"]
    return list(rows.values())


def paper_topic_rows(papers: Iterable[Paper]) -> list[dict]:
    """``ingest/paper_topics`` rows: each paper with its topics and the IN_TOPIC properties."""
    edge = model.GRAPH.relationship("IN_TOPIC")
    return [
        {"id": p.id, "topics": [{"id": link.topic_id, "props": edge.values(link)} for link in p.topics]}
        for p in papers
        if p.topics
    ]
