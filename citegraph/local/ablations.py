"""The ablations of SymTax's Tables 3 and 4, by name (the CLI offers these names).

Each name is a change to the full model (prefetch → enrichment → reranker with vector
taxonomy fusion and hyperbolic separation) and the row it fills:

* ``-enrichment`` — the trained model ranks the prefetched lists only (the Enricher is an
  inference stage in SymTax, so the model is not retrained);
* ``-taxonomy`` — no separation feature: R = σ(g_θ(e_tr));
* ``euclidean`` / ``spherical`` — the separation measured in Euclidean space, or on the
  sphere (positive curvature: what SymTax's released code computes);
* ``graph-appnp`` / ``graph-gat`` — graph taxonomy fusion with that GNN instead of vector
  fusion (Table 4: LM × fusion, crossed with every LM named).

How the variants get their LM (:data:`LM_MODES`):

* ``finetune`` — each variant fine-tunes its own copy, as SymTax trains each ablation
  (one LM pass per variant over every training and test pair: GPU work);
* ``shared`` — the first variant of each LM (the full model) fine-tunes it; the other
  variants keep that fine-tuned LM frozen and train their own heads on its cached pair
  vectors. Their differences are then the heads' alone (taxonomy, geometry, fusion);
* ``frozen`` — the pretrained LM, never trained, as a cached feature extractor.
"""

from __future__ import annotations

ABLATIONS: dict[str, str] = {  # name → its row in the ablation table (graph-*: rows <LM>_graph (GNN) of Table 4)
    "-enrichment": "− enrichment",
    "-taxonomy": "− taxonomy",
    "euclidean": "hyperbolic → Euclidean",
    "spherical": "hyperbolic → spherical (SymTax release)",
    "graph-appnp": "graph fusion (APPNP)",
    "graph-gat": "graph fusion (GAT)",
}
#: The ablations that change only the taxonomy term: on papers without arXiv categories (ACL papers, a
#: grown graph) the term is the one learned *unknown* vector for every paper, and these rows measure noise.
TAXONOMY_ABLATIONS = ("-taxonomy", "euclidean", "spherical", "graph-appnp", "graph-gat")
DEFAULT_ABLATIONS = ("-enrichment", "-taxonomy", "euclidean", "spherical", "graph-appnp")
LM_MODES = ("finetune", "shared", "frozen")
#: The rerankers a run trains: SymTax's cross-encoder with its ablations (:mod:`.symtax`), and a
#: bi-encoder fine-tuned with in-batch and graph hard negatives (:mod:`.biencoder`).
RERANKERS = ("symtax", "biencoder")
