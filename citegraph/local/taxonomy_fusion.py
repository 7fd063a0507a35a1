"""Taxonomy fusion: arXiv categories represented through the ACM classes they map to.

The graph holds the arXiv categories, the ACM 1998 tree (``BROADER``) and SymTax's
arXiv→ACM map (``(:ArxivCategory)-[:MAPS_TO]->(:AcmConcept)``); two queries read them
(``local/categories``, ``local/acm_tree``). Every text below is embedded with the
reranker's language model (mean-pooled), so the fusion lives in the model's space.

* **vector** fusion (SymTax's SciBERT_vector): a category's vector is the mean of the
  vectors of its name and of the names of the ACM classes it maps to. Categories without
  a mapping (only the 40 ``cs.*`` ones have one) keep the vector of their name.
* **graph** fusion (SPECTER_graph): the arXiv categories are injected into the ACM tree —
  nodes are the categories, the ACM classes they map to and all broader classes; edges are
  MAPS_TO and BROADER, used in both directions (messages must reach the category nodes)
  with self-loops — and a GNN initialised with the node names' vectors learns the fused
  representations, read at the category nodes. Categories outside ``cs.*`` are joined to
  a node of their arXiv group (``Physics``, ``Mathematics``, …) so that they are not
  isolated; this is citegraph's addition, SymTax's taxonomy was cs only. The GNN is
  APPNP (Gasteiger et al. 2019: H = (1 − α)·Â·H + α·H₀, K steps) or a two-layer GAT
  (Veličković et al. 2018), both written here in plain torch, trained with the reranker.

A paper's taxonomy embedding is the mean over its categories (the graph keeps no
primary category); a paper without any known category gets a learned *unknown*
embedding (initialised at the mean of all categories).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from ..heavy import torch

if TYPE_CHECKING:
    from ..graph import GraphStore


Fusion = Literal["vector", "graph"]
Gnn = Literal["appnp", "gat"]
FUSIONS = ("vector", "graph")
GNNS = ("appnp", "gat")
Embed = Callable[[list[str]], np.ndarray]


@dataclass
class TaxonomyGraph:
    """Categories (rows 0..n−1 of every node table) and the ACM tree they are injected into."""

    categories: list[str]
    names: dict[str, str]  # category code → name (the code when the taxonomy was not ingested)
    maps: dict[str, list[str]]  # category code → ACM codes
    nodes: list[str] = field(default_factory=list)  # categories, then "acm:<code>", then "group:<name>"
    texts: list[str] = field(default_factory=list)  # each node's name, for its initial vector
    edges: list[tuple[int, int]] = field(default_factory=list)  # undirected

    def row(self) -> dict[str, int]:
        return {code: i for i, code in enumerate(self.categories)}


def load_taxonomy(store: GraphStore, extra: Sequence[str] = ()) -> TaxonomyGraph:
    """The taxonomy graph from the store; ``extra`` category codes are added when missing."""
    categories: dict[str, dict] = {row["code"]: row for row in store.rows("local/categories")}
    for code in extra:
        categories.setdefault(code, {"code": code, "name": None, "group_name": None, "acm": []})
    codes = sorted(categories)
    acm = {row["code"]: row for row in store.rows("local/acm_tree")}
    graph = TaxonomyGraph(
        codes,
        {c: categories[c]["name"] or c for c in codes},
        {c: sorted(a for a in categories[c]["acm"] or () if a in acm) for c in codes},
    )
    graph.nodes = list(codes)
    graph.texts = [graph.names[c] for c in codes]
    index: dict[str, int] = {}

    def node(key: str, text: str) -> int:
        if key not in index:
            index[key] = len(graph.nodes)
            graph.nodes.append(key)
            graph.texts.append(text)
        return index[key]

    for code in sorted(acm):
        node(f"acm:{code}", acm[code]["label"] or code)
    edges: set[tuple[int, int]] = set()
    for code, row in sorted(acm.items()):
        for parent in row["broader"] or ():
            if parent in acm:
                edges.add(_pair(index[f"acm:{code}"], index[f"acm:{parent}"]))
    for i, code in enumerate(codes):
        for target in graph.maps[code]:
            edges.add(_pair(i, index[f"acm:{target}"]))
        group = categories[code]["group_name"]
        if not graph.maps[code] and group:
            edges.add(_pair(i, node(f"group:{group}", group)))
    graph.edges = sorted(edges)
    return graph


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def vector_fusion(graph: TaxonomyGraph, embed: Embed) -> np.ndarray:
    """(categories, dim): the mean of each category's name vector and its ACM classes' vectors."""
    vectors = embed(graph.texts)
    index = {key: i for i, key in enumerate(graph.nodes)}
    fused = np.zeros((len(graph.categories), vectors.shape[1]), dtype=np.float32)
    for i, code in enumerate(graph.categories):
        rows = [i, *(index[f"acm:{a}"] for a in graph.maps[code])]
        fused[i] = vectors[rows].mean(0)
    return fused


def node_features(graph: TaxonomyGraph, embed: Embed) -> np.ndarray:
    """(nodes, dim): the initial vector of every node of the taxonomy graph (its name's)."""
    return embed(graph.texts).astype(np.float32)


def adjacency(graph: TaxonomyGraph):
    """The dense symmetric adjacency with self-loops (a float tensor)."""
    n = len(graph.nodes)
    a = torch.eye(n)
    for i, j in graph.edges:
        a[i, j] = a[j, i] = 1.0
    return a
