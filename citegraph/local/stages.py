"""The stages of a local-recommendation run before any learning (:mod:`.evaluate` composes them).

1. :func:`query_set` — the query set (``data``, or the graph's contexts exported to
   ``out/contexts.jsonl``); :func:`load_corpus` — the graph's papers as the reranker and
   the prefetcher read them;
2. :func:`split` — keeps the answerable contexts (``textless="skip"``: the cited paper must
   have a title or abstract, as text rerankers need; ``"keep"``: every cited paper,
   textless ones included, reachable only through enrichment and read as empty text),
   splits them by time (:func:`.data.time_split`), opens the held-out view hiding the
   citations of every test citing paper and everything newer than the cut, and samples
   ``max_train`` train and ``max_test`` test contexts;
3. :func:`prefetch` — the top ``depth`` (100) candidates of each context (:mod:`.prefetch`);
4. :func:`enrich` — each list enriched in the view to ``size`` (300), unless
   ``enrich=False``, which sends no enrichment query at all: training negatives and test
   candidates are then the prefetched lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..evaluation.benchmark import Log, quiet
from ..retrieval.base import Document, Hit, Ranking, Retriever
from . import prefetch as prefetching
from .config import LocalConfig, PrefetchConfig, SplitConfig, Textless
from .data import Context, export_contexts, held_out_papers, time_split
from .encoding import Candidate
from .enrich import HeldOutView, enrich_all

if TYPE_CHECKING:
    from ..graph import GraphStore


# -- 1. the query set and the corpus ------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """The graph's papers as the stages read them."""

    papers: list[dict[str, Any]]  # local/papers rows
    candidates: dict[str, Candidate]  # what the reranker reads of each paper
    years: dict[str, int | None]  # papers with text: what the prefetcher may return
    documents: list[Document]  # papers with text, as the prefetcher indexes them


def load_corpus(store: GraphStore) -> Corpus:
    papers = store.run("local/papers")
    texts = {p["id"]: ((p["title"] or "").strip(), (p["abstract"] or "").strip()) for p in papers}
    candidates = {
        p["id"]: Candidate(" ".join(t for t in texts[p["id"]] if t), tuple(sorted(p["categories"] or ())))
        for p in papers
    }
    with_text = [p for p in papers if candidates[p["id"]].text]
    return Corpus(
        papers,
        candidates,
        {p["id"]: p["year"] for p in with_text},
        [Document(p["id"], *texts[p["id"]]) for p in with_text],
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


def split(
    store: GraphStore, corpus: Corpus, contexts: Sequence[Context], config: SplitConfig, seed: int, log: Log = quiet
) -> Queries:
    """Answerable contexts, split by time, sampled; the held-out view (see the module docstring)."""
    kept, info = _answerable(contexts, corpus.candidates, config.textless)
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
    return Queries(train, test, HeldOutView.hiding(store, hidden), info)


# -- 3–4. prefetch and enrichment -------------------------------------------------------------------
def prefetch(corpus: Corpus, contexts: Sequence[Context], config: PrefetchConfig, work: Path) -> list[list[str]]:
    """The top ``depth`` candidates of each context from a prefetcher indexed under ``work``."""
    retriever: Retriever = prefetching.build_prefetcher(config.spec, corpus.documents, work)
    return prefetching.prefetch(retriever, contexts, corpus.years, config.depth)


def enrich(
    view: HeldOutView, contexts: Sequence[Context], prefetched: Sequence[Sequence[str]], config: LocalConfig
) -> list[list[str]]:
    """Each prefetched list enriched in the held-out view (or kept, with ``enrich=False``)."""
    return [
        e.ids
        for e in enrich_all(
            view,
            contexts,
            prefetched,
            size=config.size,
            enabled=config.enrich,
            with_text=config.split.textless == "skip",
        )
    ]


def _answerable(
    contexts: Sequence[Context], candidates: dict[str, Candidate], textless: Textless
) -> tuple[list[Context], dict[str, Any]]:
    """The contexts a reranker can answer, with their positives restricted accordingly; counts."""
    kept, dropped = [], 0
    cited_textless = 0
    for c in contexts:
        with_text = tuple(p for p in c.cited if candidates.get(p, Candidate("")).text)
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


def coverage(test: Sequence[Context], prefetched, enriched, candidates) -> dict[str, float]:
    def found(lists) -> float:
        return float(np.mean([any(p in set(ids) for p in c.cited) for c, ids in zip(test, lists)])) if test else 0.0

    textless = [sum(1 for i in ids if not candidates.get(i, Candidate("")).text) for ids in enriched]
    return {
        "candidates_prefetched": float(np.mean([len(x) for x in prefetched])) if test else 0.0,
        "candidates_enriched": float(np.mean([len(x) for x in enriched])) if test else 0.0,
        "candidates_without_text": float(np.mean(textless)) if test else 0.0,
        "positive_in_prefetched": found(prefetched),
        "positive_in_enriched": found(enriched),
    }
