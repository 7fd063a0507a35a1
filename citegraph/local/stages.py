"""The stages of a local-recommendation run before any learning (:mod:`.experiment` composes them).

1. :func:`query_set` — the query set (``data``, or the graph's contexts exported to
   ``out/contexts.jsonl``); :func:`load_corpus` — the graph's papers as the reranker and
   the prefetcher read them: title and abstract (``candidates="all"``), or the title alone
   for every paper (``"uniform"``: ScisummNet's ~1,000 cited papers have abstracts, the
   ~10,000 ACL-200 papers beside them titles only, so the kind of text would tell the
   answer), the candidate set — the papers with a title or an abstract — being the same;
   or (``"abstracts"``) only the papers with an abstract, each its title and abstract: a
   paper without one is then textless like a paper without a title, so no candidate differs
   from another by the kind of its text and the controls' prior is gone;
2. :func:`split` — keeps the answerable contexts (``textless="skip"``: the cited paper must
   have a title or abstract, as text rerankers need; ``"keep"``: every cited paper,
   textless ones included, reachable only through enrichment and read as empty text),
   splits them by time (:func:`.data.time_split`), opens the held-out view hiding the
   citations of every test citing paper and everything newer than the cut, and samples
   ``max_train`` train and ``max_test`` test contexts;
3. :meth:`Lists.prefetch` — the top ``depth`` (100) candidates of each context (:mod:`.prefetch`);
4. :func:`enrich` — each list enriched in the view to ``size`` (300), unless
   ``enrich=False``, which sends no enrichment query at all: training negatives and test
   candidates are then the prefetched lists.

A run over several seeds draws other samples from the same split: :class:`Lists` keeps each
context's prefetched and enriched lists (and the prefetchers' indexes) across the seeds
(:meth:`Lists.enrich` calls :func:`enrich`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..evaluation.harness import Log, quiet
from ..retrieval.base import Document, Hit, Ranking, Retriever
from . import controls
from . import prefetch as prefetching
from .config import CandidateFields, LocalConfig, SplitConfig, Textless
from .data import Context, export_contexts, graph_papers, held_out_papers, time_split
from .encoding import Candidate
from .enrich import HeldOutView, enrich_all

if TYPE_CHECKING:
    from ..graph import GraphStore


# -- 1. the query set and the corpus ------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """The graph's papers as the stages read them."""

    papers: list[dict[str, Any]]  # local/papers_by_id rows
    candidates: dict[str, Candidate]  # what the rerankers read of each paper (as ``fields`` says)
    years: dict[str, int | None]  # papers with a title or abstract: what the prefetcher may return
    documents: list[Document]  # those papers as the prefetcher indexes them (as ``fields`` says)
    abstracts: frozenset[str]  # the papers that have an abstract, whatever the models are shown
    fields: CandidateFields = "all"


def load_corpus(store: GraphStore, fields: CandidateFields = "all") -> Corpus:
    """The graph's papers, each represented by its title and abstract (``"all"``) or by its
    title only (``"uniform"``), the candidates being the papers with a title or abstract; or
    (``"abstracts"``) the papers with an abstract, by both, the others shown nothing."""
    papers = list(graph_papers(store))
    full = {p["id"]: ((p["title"] or "").strip(), (p["abstract"] or "").strip()) for p in papers}
    shown = {
        "all": full,
        "uniform": {i: (title, "") for i, (title, _) in full.items()},
        "abstracts": {i: (title, abstract) if abstract else ("", "") for i, (title, abstract) in full.items()},
    }[fields]
    candidates = {
        p["id"]: Candidate(" ".join(t for t in shown[p["id"]] if t), tuple(sorted(p["categories"] or ())))
        for p in papers
    }
    with_text = [p for p in papers if any(shown[p["id"]])]
    return Corpus(
        papers,
        candidates,
        {p["id"]: p["year"] for p in with_text},
        [Document(p["id"], *shown[p["id"]]) for p in with_text],
        frozenset(i for i, (_, abstract) in full.items() if abstract),
        fields,
    )


def query_set(store: GraphStore, data: Path | None, out: Path, log: Log = quiet) -> Path:
    """``data``, or the graph's contexts exported to ``out/contexts.jsonl``."""
    if data is not None:
        return Path(data)
    path = Path(out) / "contexts.jsonl"
    export = export_contexts(store, path)
    log(f"exported {export['contexts']} contexts of {export['citing_papers']} citing papers to {path}")
    return path


# -- 2. the split ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Queries:
    train: list[Context]
    test: list[Context]
    view: HeldOutView | None  # the graph without the held-out citations (None: nothing answerable)
    info: dict[str, Any]
    cited_with_abstract: bool = True  # most training citations cite a paper with an abstract (:mod:`.controls`)


def split(
    store: GraphStore, corpus: Corpus, contexts: Sequence[Context], config: SplitConfig, seed: int, log: Log = quiet
) -> Queries:
    """Answerable contexts, split by time, sampled; the held-out view (see the module docstring)."""
    kept, info = _answerable(contexts, corpus.years.keys(), config.textless)
    log(f"{len(kept)} of {len(contexts)} contexts answerable ({config.textless} textless cited papers)")
    if not kept:
        return Queries([], [], None, info)
    parts = time_split(kept, config.test_share, whole_years=config.whole_years)
    hidden = held_out_papers(parts, ((p["id"], p["year"], p["arxiv_id"]) for p in corpus.papers))
    # one generator per side, so that the test sample does not depend on how much was trained on
    train_rng, test_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    train, test = _sample(parts.train, config.max_train, train_rng), _sample(parts.test, config.max_test, test_rng)
    info.update(parts.info, hidden_citing_papers=len(hidden), train_used=len(train), test_used=len(test))
    log(
        f"split: {parts.info}; using {len(train)} train and {len(test)} test contexts; "
        f"the view hides the citations of {len(hidden)} papers"
    )
    with_abstract = controls.cited_mostly_have_an_abstract(parts.train, corpus.abstracts)  # the seed's sample aside
    return Queries(train, test, HeldOutView.hiding(store, hidden), info, with_abstract)


# -- 3–4. prefetch and enrichment -------------------------------------------------------------------
class Lists:
    """Each context's candidate lists, computed once however many seeds draw the context: the
    prefetched top ``depth`` of each first stage (each indexed once, under ``work``) and the
    enriched lists. Enrichment is cached by context id, which is sound because every seed
    shares the time split and so the held-out view."""

    def __init__(self, corpus: Corpus, config: LocalConfig, work: Path):
        self.corpus, self.config, self.work = corpus, config, Path(work)
        self.retrievers: dict[str, Retriever] = {}
        self.prefetched: dict[str, dict[str, list[str]]] = {}  # spec → context id → list
        self.enriched: dict[str, list[str]] = {}

    def prefetch(self, contexts: Sequence[Context], spec: str | None = None) -> list[list[str]]:
        """The top ``depth`` of the first stage ``spec`` (the prefetcher's by default) for each context."""
        spec = spec or self.config.prefetch.spec
        if spec not in self.retrievers:
            self.retrievers[spec] = prefetching.build_prefetcher(spec, self.corpus.documents, self.work)
        known = self.prefetched.setdefault(spec, {})
        todo = list({c.id: c for c in contexts if c.id not in known}.values())
        found = prefetching.prefetch(self.retrievers[spec], todo, self.corpus.years, self.config.prefetch.depth)
        known.update(zip((c.id for c in todo), found))
        return [known[c.id] for c in contexts]

    def enrich(self, view: HeldOutView, contexts: Sequence[Context]) -> list[list[str]]:
        """Each context's prefetched list enriched in ``view`` (see :func:`enrich`)."""
        todo = list({c.id: c for c in contexts if c.id not in self.enriched}.values())
        found = enrich(view, todo, self.prefetch(todo), self.config, self.corpus.years.keys())
        self.enriched.update(zip((c.id for c in todo), found))
        return [self.enriched[c.id] for c in contexts]


def enrich(
    view: HeldOutView,
    contexts: Sequence[Context],
    prefetched: Sequence[Sequence[str]],
    config: LocalConfig,
    texts: Collection[str] | None = None,
) -> list[list[str]]:
    """Each prefetched list enriched in the held-out view (or kept, with ``enrich=False``).
    ``texts``: the papers with text as the corpus shows them; with ``textless="skip"`` an
    enriched paper outside them is left out (the graph's own test is "a title or an abstract",
    which lets in a paper ``candidates="abstracts"`` shows nothing of)."""
    skip = config.split.textless == "skip"
    lists = [
        e.ids for e in enrich_all(view, contexts, prefetched, size=config.size, enabled=config.enrich, with_text=skip)
    ]
    if skip and texts is not None:
        return [[p for p in ids if p in texts] for ids in lists]
    return lists


def _answerable(
    contexts: Sequence[Context], texts: Collection[str], textless: Textless
) -> tuple[list[Context], dict[str, Any]]:
    """The contexts a reranker can answer (``texts``: the papers with text), with their positives
    restricted accordingly; counts."""
    kept, dropped = [], 0
    cited_textless = 0
    for c in contexts:
        with_text = tuple(p for p in c.cited if p in texts)
        cited_textless += len(c.cited) - len(with_text)
        if textless == "keep":
            kept.append(c)
        elif with_text:
            kept.append(replace(c, cited=with_text))
        else:
            dropped += 1
    return kept, {
        "contexts_read": len(contexts),
        "answerable": len(kept),
        "dropped_cited_without_text": dropped,
        "cited_without_text": cited_textless,
    }


def _sample(contexts: list[Context], limit: int | None, rng: np.random.Generator) -> list[Context]:
    if limit is None or len(contexts) <= limit:
        return list(contexts)
    return [contexts[i] for i in sorted(rng.choice(len(contexts), size=limit, replace=False))]


def ordered(contexts: Sequence[Context], lists: Sequence[Sequence[str]]) -> dict[str, Ranking]:
    """A candidate list as a ranking in its own order."""
    return {c.id: [Hit(p, float(len(ids) - i)) for i, p in enumerate(ids)] for c, ids in zip(contexts, lists)}


def coverage(test: Sequence[Context], prefetched, enriched, corpus: Corpus) -> dict[str, float]:
    def found(lists) -> float:
        return float(np.mean([any(p in set(ids) for p in c.cited) for c, ids in zip(test, lists)])) if test else 0.0

    textless = [sum(1 for i in ids if i not in corpus.years) for ids in enriched]
    return {
        "candidates_prefetched": float(np.mean([len(x) for x in prefetched])) if test else 0.0,
        "candidates_enriched": float(np.mean([len(x) for x in enriched])) if test else 0.0,
        "candidates_without_text": float(np.mean(textless)) if test else 0.0,
        "positive_in_prefetched": found(prefetched),
        "positive_in_enriched": found(enriched),
    }
