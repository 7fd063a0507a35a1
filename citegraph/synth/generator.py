"""The corpus of one :class:`~.recipe.SynthSpec`, batch by batch: references from the urns,
texts from the lexicon, authors from each topic's pool, written as S2ORC metadata JSONL
or, with ``contexts``, citegraph's generic JSONL with citing sentences."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from .citations import Recent, Urns
from .layout import arxiv_id_of, draw_plan, random_streams
from .lexicon import Lexicon
from .recipe import SynthSpec, SynthStats, id_format

_SECOND_FIELD_SHARE = 0.2  # papers filed under their topic's second field too
_SECOND_CATEGORY_SHARE = 0.5  # arXiv papers of two-category topics that list both

# Text shapes: (low, high) word counts per sentence and sentences per text, and the share
# of words drawn from the topic vocabulary rather than the background.
_TITLE_WORDS, _TITLE_TOPIC_SHARE = (6, 14), 0.5
_ABSTRACT_SENTENCES, _ABSTRACT_WORDS, _ABSTRACT_TOPIC_SHARE = (6, 9), (17, 27), 0.25
_CONTEXT_WORDS, _CONTEXT_TOPIC_SHARE = (12, 28), 0.4  # the marker counts as a word
_SECOND_CONTEXT_SHARE = 0.15  # references cited twice in the text

_AUTHORS_PER_PAPER = 2.3  # Poisson mean of co-authors beyond the first
_AUTHOR_POOL = 0.6  # distinct authors per paper of a topic
_K_SHAPE = 2.0  # negative-binomial shape of reference counts: sd ≈ 0.8 × mean at mean 10
_BATCH = 4096  # papers per batch once the corpus is large


def records(spec: SynthSpec) -> Iterator[dict[str, Any]]:
    """The corpus as JSON-ready records, in publication order: the iterator form of :func:`generate`."""
    return Generator(spec).records()


def generate(spec: SynthSpec, out: Path) -> SynthStats:
    """Write the corpus to ``out`` (JSONL, one paper a line), streaming."""
    started = time.perf_counter()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
    refs = "references" if spec.contexts else "outbound_citations"
    papers = citations = size = 0
    with open(out, "w", encoding="ascii", newline="\n") as f:
        for record in records(spec):
            line = encode(record) + "\n"
            f.write(line)
            size += len(line)
            papers += 1
            citations += len(record[refs])
    return SynthStats(papers, citations, size, time.perf_counter() - started)


class Generator:
    """The corpus of one spec, batch by batch; its state is the urns and the random streams."""

    def __init__(self, spec: SynthSpec):
        self.spec = spec
        streams = random_streams(spec.seed)
        self.lexicon = Lexicon(streams["world"], spec.topics)
        self.plan = draw_plan(spec, self.lexicon, streams["layout"])
        self.cite_rng, self.text_rng = streams["cite"], streams["text"]
        self.people_rng, self.context_rng = streams["people"], streams["contexts"]
        per_topic = np.bincount(self.plan.topic, minlength=spec.topics)
        self.urns = Urns(per_topic * (1 + spec.citations_per_paper) * 11 // 10 + 16)
        self.recent = Recent(self.plan, spec)
        pool = np.maximum(8, np.ceil(per_topic * _AUTHOR_POOL)).astype(np.int64)
        self.author_pool, self.author_base = pool, np.cumsum(pool) - pool
        self.format_id = id_format(spec.papers)

    def records(self) -> Iterator[dict[str, Any]]:
        lo, n = 0, self.spec.papers
        while lo < n:
            hi = min(n, lo + max(1, min(_BATCH, lo // 8)))
            yield from self._batch(lo, hi)
            lo = hi

    def _cite(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """References of papers ``lo``..``hi``-1, drawn from the urns as they stand before ``lo``.

        Returns the number of references of each paper and the cited paper indices, paper
        by paper. More candidates than wanted are drawn so that dropping repeats rarely
        leaves a paper short (mostly while its topic is still small).
        """
        spec, rng, count = self.spec, self.cite_rng, hi - lo
        mean = spec.citations_per_paper
        want = (
            rng.negative_binomial(_K_SHAPE, _K_SHAPE / (_K_SHAPE + mean), count)
            if mean > 0
            else np.zeros(count, np.int64)
        )
        want = np.minimum(want, lo)
        # Split each paper's references between its own topic and the others up front, so
        # that repeats dropped on one side are made up from the same side.
        own_size = self.urns.size[self.plan.topic[lo:hi]]
        other_size = self.urns.size.sum() - own_size
        same = rng.binomial(want, spec.p_same_topic)
        same = np.where(own_size == 0, 0, np.where(other_size == 0, want, same))
        group_want = np.stack([same, want - same], axis=1).ravel()  # group 2i: paper i's own topic
        group = np.repeat(np.arange(2 * count), np.where(group_want > 0, group_want + group_want // 2 + 2, 0))
        row = group // 2
        if row.size:
            # Every candidate gets an attachment draw; a share p_recent of them replace it
            # by a recent paper, keeping it where there is no recent paper to cite.
            own_topic = group % 2 == 0
            cited = self.urns.draw(rng, self.plan.topic[lo + row], own_topic)
            recent = np.flatnonzero(rng.random(row.size) < spec.p_recent)
            cited[recent] = self.recent.draw(rng, lo + row[recent], own_topic[recent], cited[recent])
        else:
            cited = np.zeros(0, np.int32)
        _, first = np.unique(group.astype(np.int64) * spec.papers + cited, return_index=True)
        first.sort()
        group, cited = group[first], cited[first]
        keep = np.arange(group.size) - np.searchsorted(group, group) < group_want[group]
        row, cited = group[keep] // 2, cited[keep].astype(np.int64)
        order = np.lexsort((cited, row))  # a paper lists its references oldest first
        row, cited = row[order], cited[order]
        new = np.concatenate([np.arange(lo, hi), cited])
        self.urns.add(new, self.plan.topic[new])
        return np.bincount(row, minlength=count), cited

    def _batch(self, lo: int, hi: int) -> Iterator[dict[str, Any]]:
        spec, lexicon, rng, people = self.spec, self.lexicon, self.text_rng, self.people_rng
        count = hi - lo
        topic = self.plan.topic[lo:hi]
        n_refs, cited = self._cite(lo, hi)
        titles = lexicon.texts(
            rng, topic, np.ones(count, np.int64), _TITLE_WORDS, _TITLE_TOPIC_SHARE, stop=False, marker=False
        )
        sentences = rng.integers(_ABSTRACT_SENTENCES[0], _ABSTRACT_SENTENCES[1] + 1, count)
        abstracts = lexicon.texts(
            rng, topic, sentences, _ABSTRACT_WORDS, _ABSTRACT_TOPIC_SHARE, stop=True, marker=False
        )
        second_field = (people.random(count) < _SECOND_FIELD_SHARE).tolist()
        second_category = (people.random(count) < _SECOND_CATEGORY_SHARE).tolist()
        venue = np.searchsorted([0.5, 0.8], people.random(count), side="right").tolist()
        authors = self._authors(topic)
        ref_bounds = [0, *accumulate(n_refs.tolist())]
        ref_ids = [self.format_id(c + 1) for c in cited.tolist()]
        if spec.contexts:
            contexts = self._contexts(cited)
        for i, (t, year, arxiv) in enumerate(
            zip(topic.tolist(), self.plan.year[lo:hi].tolist(), self.plan.arxiv[lo:hi].tolist())
        ):
            t = self.plan.topics[t]
            fields = [t.field, t.second_field] if second_field[i] else [t.field]
            arxiv_id = arxiv_id_of(arxiv)
            a, b = ref_bounds[i], ref_bounds[i + 1]
            if spec.contexts:
                categories = (list(t.categories) if second_category[i] else [t.categories[0]]) if arxiv_id else []
                yield {
                    "id": self.format_id(lo + i + 1),
                    "title": titles[i],
                    "abstract": abstracts[i],
                    "year": year,
                    "venue": t.venues[venue[i]],
                    "arxiv_id": arxiv_id,
                    "fields": fields,
                    "categories": categories,
                    "authors": [" ".join(filter(None, name)) for name in authors[i]],
                    "references": [{"id": ref_ids[r], "contexts": contexts[r]} for r in range(a, b)],
                }
            else:
                yield {
                    "paper_id": self.format_id(lo + i + 1),
                    "title": titles[i],
                    "authors": [
                        {"first": first, "middle": [middle] if middle else [], "last": last, "suffix": ""}
                        for first, middle, last in authors[i]
                    ],
                    "abstract": abstracts[i],
                    "year": year,
                    "arxiv_id": arxiv_id,
                    "doi": None,
                    "venue": t.venues[venue[i]],
                    "mag_field_of_study": fields,
                    "outbound_citations": ref_ids[a:b],
                    "inbound_citations": [],
                }

    def _authors(self, topic: np.ndarray) -> list[list[tuple[str, str, str]]]:
        """(first, middle initial or '', last) of each paper's authors, from its topic's pool.

        Authors are drawn Zipf-wise from the pool (rank r with probability ∝ 1/r), which
        gives Lotka's law of productivity; a paper lists a name once.
        """
        rng = self.people_rng
        n_authors = 1 + np.minimum(rng.poisson(_AUTHORS_PER_PAPER, topic.size), 14)
        author_topic = np.repeat(topic, n_authors)
        pool = self.author_pool[author_topic]
        rank = np.minimum(np.exp(rng.random(author_topic.size) * np.log(pool + 1)).astype(np.int64) - 1, pool - 1)
        names = list(zip(*self.lexicon.authors(self.author_base[author_topic] + rank)))
        bounds = [0, *accumulate(n_authors.tolist())]
        return [list(dict.fromkeys(names[a:b])) for a, b in zip(bounds, bounds[1:])]

    def _contexts(self, cited: np.ndarray) -> list[list[str]]:
        """Citing sentences for each reference (one, sometimes two), worded in the cited paper's topic."""
        rng = self.context_rng
        per_ref = 1 + (rng.random(cited.size) < _SECOND_CONTEXT_SHARE)
        sentences = self.lexicon.texts(
            rng,
            np.repeat(self.plan.topic[cited], per_ref),
            np.ones(int(per_ref.sum()), np.int64),
            _CONTEXT_WORDS,
            _CONTEXT_TOPIC_SHARE,
            stop=True,
            marker=True,
        )
        bounds = [0, *accumulate(per_ref.tolist())]
        return [sentences[a:b] for a, b in zip(bounds, bounds[1:])]
