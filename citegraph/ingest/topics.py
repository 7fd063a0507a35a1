"""OpenAlex's topic tree on both write paths: the rows of the streaming writer's statements
and the bulk builder's share of the compact graph.

A paper's :class:`~citegraph.ingest.records.TopicLink` carries the path from its domain
down to the topic, so the tree is built from the works themselves (no separate topics file
to load first) and every write path derives the same ``:Topic`` nodes, ``BROADER_TOPIC``
links and ``IN_TOPIC`` edges from it. Both paths merge as the Cypher does: a node's
properties as ``SET t += props`` leaves them (later non-null values win), its parent the
last one given, an ``IN_TOPIC`` the last properties given for its (paper, topic) pair.
Kept apart from :mod:`citegraph.ingest.writer` and :mod:`citegraph.ingest.compact` so that
the tree is one module's business.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from ..graph import model
from .records import Paper, TopicLink


# -- the streaming writer --------------------------------------------------------------
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


# -- the bulk builder ------------------------------------------------------------------
class TopicTree:
    """The builder's topic nodes, their parents and the papers' IN_TOPIC edges, as integers
    (a paper by its paper-space index, a node by the order it was first met)."""

    def __init__(self) -> None:
        self.node = model.GRAPH.node("Topic")
        self.edge = model.GRAPH.relationship("IN_TOPIC")
        self.ids: dict[str, int] = {}
        self.props: list[dict] = []
        self.parent: dict[int, int] = {}
        self.links = array("q"), array("q")  # paper, topic
        self.scores = array("d")  # NaN: no score
        self.primary = array("b")

    def _index(self, topic_id: str) -> int:
        found = self.ids.get(topic_id)
        if found is None:
            found = self.ids[topic_id] = len(self.ids)
            self.props.append({})
        return found

    def add(self, paper: int, record: Paper) -> None:
        for link in record.topics:
            for topic in link.lineage:
                i = self._index(topic.id)
                self.props[i].update(self.node.values(topic))
                if topic.broader:
                    self.parent[i] = self._index(topic.broader)
            self.links[0].append(paper)
            self.links[1].append(self.ids[link.topic_id])
            self.scores.append(math.nan if link.score is None else link.score)
            self.primary.append(link.primary)

    def finish(self, new: np.ndarray, work: Path) -> list[dict]:
        """Write the arrays (papers renumbered by ``new``) to ``work``; returns the nodes' rows."""
        paper = new[np.frombuffer(self.links[0], np.int64)] if self.links[0] else np.zeros(0, np.int64)
        topic = np.frombuffer(self.links[1], np.int64) if self.links[1] else np.zeros(0, np.int64)
        key = paper * max(len(self.ids), 1) + topic
        order = np.argsort(key, kind="stable")
        last = order[np.r_[key[order][1:] != key[order][:-1], True]] if key.size else np.zeros(0, np.int64)
        np.save(work / "in_topic.npy", np.stack([paper[last], topic[last]]))
        np.save(work / "in_topic_scores.npy", np.asarray(self.scores, np.float64)[last])
        np.save(work / "in_topic_primary.npy", np.asarray(self.primary, np.bool_)[last])
        parents = sorted(self.parent.items())
        np.save(work / "broader_topic.npy", np.array(parents, np.int64).T.reshape(2, -1))
        return [{"id": topic_id, **props} for topic_id, props in zip(self.ids, self.props)]


def in_topic_props(work: Path) -> Iterator[dict]:
    """The IN_TOPIC property maps in the order of ``in_topic.npy``, as the model makes them of a link."""
    edge = model.GRAPH.relationship("IN_TOPIC")
    for score, primary in zip(
        np.load(work / "in_topic_scores.npy").tolist(), np.load(work / "in_topic_primary.npy").tolist()
    ):
        yield edge.values(TopicLink((), None if math.isnan(score) else score, primary))
