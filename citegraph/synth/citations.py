"""Who cites whom in a synthetic corpus, in O(1) per draw: preferential attachment from
per-topic urns, and uniform draws among recent papers (the mixture the package's docstring
describes)."""

from __future__ import annotations

import numpy as np

from .recipe import Plan, SynthSpec


class Urns:
    """Preferential attachment in O(1) per draw: one "list of endpoints" per topic.

    A paper is put in its topic's urn once when published and once more each time it is
    cited, so a uniform draw from an urn picks a paper with probability proportional to
    (in-degree + 1). The urns share one int32 buffer, each topic a segment of it that is
    re-laid out when one fills.
    """

    def __init__(self, capacity: np.ndarray):
        self.capacity = capacity.astype(np.int64)
        self.start = np.cumsum(self.capacity) - self.capacity
        self.size = np.zeros_like(self.capacity)
        self.buffer = np.empty(int(self.capacity.sum()), np.int32)

    def add(self, papers: np.ndarray, topics: np.ndarray) -> None:
        counts = np.bincount(topics, minlength=self.size.size)
        needed = self.size + counts
        if (needed > self.capacity).any():
            self._grow(needed)
        order = np.argsort(topics, kind="stable")
        sorted_topics = topics[order]
        rank = np.arange(order.size) - np.repeat(np.cumsum(counts) - counts, counts)
        self.buffer[self.start[sorted_topics] + self.size[sorted_topics] + rank] = papers[order]
        self.size = needed

    def _grow(self, needed: np.ndarray) -> None:
        capacity = np.where(needed > self.capacity, np.maximum(needed, self.capacity * 5 // 4), self.capacity)
        start = np.cumsum(capacity) - capacity
        buffer = np.empty(int(capacity.sum()), np.int32)
        for t in range(self.size.size):
            buffer[start[t] : start[t] + self.size[t]] = self.buffer[self.start[t] : self.start[t] + self.size[t]]
        self.capacity, self.start, self.buffer = capacity, start, buffer

    def draw(self, rng: np.random.Generator, own: np.ndarray, same: np.ndarray) -> np.ndarray:
        """One paper per entry of ``own`` (a topic): from that topic's urn where ``same``,
        else from the other topics' urns together. The urn drawn from must not be empty."""
        size = self.size
        total = int(size.sum())
        own_size = size[own]
        u = rng.random(own.size)
        before = np.cumsum(size) - size
        # A position in the urns laid end to end in topic order, skipping the own urn for
        # a draw from the others.
        other = (u * (total - own_size)).astype(np.int64)
        other += own_size * (other >= before[own])
        position = np.where(same, before[own] + (u * own_size).astype(np.int64), other)
        topic = np.searchsorted(np.cumsum(size), position, side="right")
        return self.buffer[self.start[topic] + position - before[topic]]


class Recent:
    """Uniform draws among a citing paper's recent predecessors, in O(1) each.

    Papers are numbered in publication order, so those published since a year began and
    before the citing paper are a contiguous range of paper numbers; so are those of one
    topic within the list of its papers in publication order.
    """

    def __init__(self, layout: Plan, spec: SynthSpec):
        topics, papers = spec.topics, layout.topic.size
        per_topic = np.bincount(layout.topic, minlength=topics)
        self.topic, self.year, self.recent_years = layout.topic, layout.year, int(spec.recent_years)
        self.start_year = spec.start_year
        self.by_topic = np.argsort(layout.topic, kind="stable").astype(np.int32)  # each topic's papers in order
        self.topic_start = np.cumsum(per_topic) - per_topic
        self.rank = np.empty(papers, np.int32)  # a paper's place among its topic's papers
        self.rank[self.by_topic] = np.arange(papers) - np.repeat(self.topic_start, per_topic)
        # Per year: its first paper, and each topic's number of papers before that one.
        span = spec.end_year - spec.start_year + 1
        year_index = layout.year.astype(np.int64) - spec.start_year
        self.year_first = np.searchsorted(year_index, np.arange(span))
        per_year = np.bincount(year_index * topics + layout.topic, minlength=span * topics).reshape(span, topics)
        self.topic_before = np.cumsum(per_year, axis=0) - per_year

    def draw(self, rng: np.random.Generator, citing: np.ndarray, same: np.ndarray, fallback: np.ndarray) -> np.ndarray:
        """For each paper of ``citing``, one published at most ``recent_years`` before it
        and earlier in order: of its own topic where ``same``, else of another topic.
        Where there is none (or the draw from all topics hit the own one), ``fallback``."""
        topic = self.topic[citing]
        window = np.maximum(self.year[citing].astype(np.int64) - self.start_year - self.recent_years, 0)
        low = np.where(same, self.topic_before[window, topic], self.year_first[window])
        high = np.where(same, self.rank[citing], citing)
        pick = low + (rng.random(citing.size) * (high - low)).astype(np.int64)
        last = self.topic.size - 1  # the clamps only guard empty ranges, whose picks are discarded
        pick = np.where(same, self.by_topic[np.minimum(self.topic_start[topic] + pick, last)], pick)
        valid = (high > low) & (same | (self.topic[np.minimum(pick, last)] != topic))
        return np.where(valid, pick, fallback).astype(fallback.dtype)
