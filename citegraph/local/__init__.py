"""Local citation recommendation: SymTax (Goyal et al., ACL 2024) on the citation graph.

Given a citation context (the sentence before, the citing sentence with its ``[CIT]``
marker, the sentence after), the citing paper's title, abstract and arXiv categories,
recommend the paper cited there. Three stages, one module each:

* :mod:`.prefetch` — top 100 from BM25, a dense encoder or their fusion;
* :mod:`.enrich` — the candidates' outgoing citation neighbours by frequency, to 300, in
  Cypher on a held-out view of the graph (test citations invisible);
* :mod:`.symtax` — a cross-encoder's joint embedding concatenated with the taxonomy
  separation (:mod:`.taxonomy_fusion` fusion of arXiv categories with the ACM tree, :mod:`.geometry`
  hyperbolic / Euclidean / spherical distances), a feed-forward layer and a sigmoid,
  trained with a triplet loss.

:mod:`.biencoder` is the other learned reranker (query and candidate encoded apart); both
read papers and texts through :mod:`.encoding`. :mod:`.data` exports the contexts of the
graph as a query set and splits it by time; :mod:`.experiment` composes the run from
:mod:`.stages` (split, prefetch, enrichment), :mod:`.learned` (the models trained and
ranking) and :mod:`.tables` (the metrics and p-values). torch and transformers are
imported only when a reranker is built.
"""
