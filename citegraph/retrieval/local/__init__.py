"""Local citation recommendation: SymTax (Goyal et al., ACL 2024) on the citation graph.

Given a citation context (the sentence before, the citing sentence with its ``[CIT]``
marker, the sentence after), the citing paper's title, abstract and arXiv categories,
recommend the paper cited there. Three stages, one module each:

* :mod:`.prefetch` — top 100 from BM25, a dense encoder or their fusion;
* :mod:`.enrich` — the candidates' outgoing citation neighbours by frequency, to 300, in
  Cypher on a held-out view of the graph (test citations invisible);
* :mod:`.rerank` — a cross-encoder's joint embedding concatenated with the taxonomy
  separation (:mod:`.taxonomy` fusion of arXiv categories with the ACM tree, :mod:`.geometry`
  hyperbolic / Euclidean / spherical distances), a feed-forward layer and a sigmoid,
  trained with a triplet loss.

:mod:`.data` exports the contexts of the graph as a query set and splits it by time;
:mod:`.evaluate` runs the pipeline, its ablations and the metrics. torch and transformers
are imported only when a reranker is built.

Submodules are imported on first use (the graph driver with :mod:`.enrich` and
:mod:`.evaluate`), so the CLI can read the registries (:data:`.ablations.ABLATIONS`,
:data:`.prefetch.PREFETCHERS`) at start-up for free.
"""

from importlib import import_module

_EXPORTS = {
    "ABLATIONS": "ablations", "DEFAULT_ABLATIONS": "ablations",
    "Context": "data", "Split": "data", "export_contexts": "data", "held_out_papers": "data",
    "read_contexts": "data", "time_split": "data",
    "HeldOutView": "enrich", "enrich_all": "enrich",
    "MEASURES": "evaluate", "evaluate_local": "evaluate",
    "PREFETCHERS": "prefetch", "build_prefetcher": "prefetch",
    "Candidate": "rerank", "Example": "rerank", "Reranker": "rerank", "RerankerConfig": "rerank",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
