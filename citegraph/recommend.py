"""Graph-aware recommendation: which papers should this paper cite, and why.

A *seed* is a paper in the graph (its text, year and references come from the graph) or
a new paper given as title + abstract, optionally with the references already chosen,
its year and a field or arXiv category to stay within. Candidates come from two sides:

* **text** — each configured retriever's top ``text_depth`` (BM25, a dense encoder, …);
* **graph** (Cypher, ``cypher/recommend/``) — papers cited by the seed's references, papers
  co-cited with them by other papers, papers coupled with the seed (citing its
  references), and the ego-network enrichment of the top text candidates (the papers
  they cite).

Every candidate then gets the same features from the graph (``recommend/features``),
computed so that the seed's own citation edges never count (which also makes held-out
citations a fair test): co-citation with the references, coupling with the seed,
citations by other papers, the MDCR overlap O, plus each retriever's min–max normalised
score. The score is a weighted sum of the features — default weights, weights the user
sets, or weights learned by logistic regression on held-out citations of the graph
(:func:`train`). Candidates newer than the seed, outside the requested field or
category, already cited, the seed itself and ``:External`` stubs (no text to show) are
left out. Ties are broken by id, so a recommendation is deterministic.

Each recommendation carries its **explanation**: the signals that fired, with the graph
path behind them ("cited by 3 of your references: A, B, C").
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import CitegraphError
from .graph import GraphStore
from .retrieval.base import Document, Retriever
from .retrieval.signals import enrich

GRAPH_FEATURES = ("cited_by_references", "cocitation", "coupling", "citations", "overlap", "enrichment")
DEFAULT_WEIGHTS = {"cited_by_references": 1.0, "cocitation": 0.5, "coupling": 0.5, "citations": 0.2,
                   "overlap": 1.0, "enrichment": 0.3, "text": 1.0}


@dataclass(frozen=True, slots=True)
class Seed:
    """What a recommendation is for."""

    id: str = ""  # '' for a paper not in the graph
    title: str = ""
    abstract: str = ""
    year: int | None = None
    references: tuple[str, ...] = ()
    field: str | None = None
    category: str | None = None

    @property
    def document(self) -> Document:
        return Document(self.id or "seed", self.title, self.abstract)


@dataclass(frozen=True, slots=True)
class Signal:
    name: str
    value: float
    text: str
    via: tuple[str, ...] = ()  # the papers on the graph path


@dataclass
class Recommendation:
    id: str
    title: str
    year: int | None
    score: float
    signals: list[Signal] = field(default_factory=list)

    def explanation(self) -> list[str]:
        return [s.text for s in self.signals]


@dataclass
class _Candidate:
    id: str
    features: dict[str, float] = field(default_factory=dict)
    signals: list[Signal] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


class Recommender:
    """Recommends citations from the graph behind ``store`` and the given text retrievers.

    >>> with Recommender.open() as rec:                         # doctest: +SKIP
    ...     for r in rec.recommend(paper="P07-2045", k=5):
    ...         print(r.id, r.title, r.explanation())
    """

    def __init__(self, store: GraphStore, retrievers: Sequence[Retriever] = (), *,
                 weights: dict[str, float] | None = None, text_depth: int = 100, graph_depth: int = 100,
                 enrich_depth: int = 20, close_store: bool = False):
        self.store = store
        self.retrievers = list(retrievers)
        self.weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
        self.text_depth, self.graph_depth, self.enrich_depth = text_depth, graph_depth, enrich_depth
        self._close_store = close_store

    @classmethod
    def open(cls, config=None, retrievers: Sequence[str] = ("bm25",), model: Path | None = None,
             **options) -> "Recommender":
        """A recommender on the configured graph (the embedded one by default) with retrievers
        opened by name from ``<data dir>/indexes`` and, optionally, learned weights."""
        from .config import Config
        from .graph import open_store
        from .retrieval import open_retriever

        config = config or Config.load()
        opened = [open_retriever(name, Path(config.data_dir) / "indexes") for name in retrievers]
        weights = load_weights(model) if model else None
        return cls(open_store(config), opened, weights=weights, close_store=True, **options)

    def close(self) -> None:
        if self._close_store:
            self.store.close()

    def __enter__(self) -> "Recommender":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the seed ----------------------------------------------------------------------
    def seed(self, paper: str | None = None, *, title: str = "", abstract: str = "",
             references: Sequence[str] = (), year: int | None = None, field: str | None = None,
             category: str | None = None) -> Seed:
        if paper:
            rows = self.store.run("recommend/seed", id=paper)
            if not rows:
                raise CitegraphError(f"no paper with id {paper!r} in the graph")
            row = rows[0]
            return Seed(row["id"], row["title"] or "", row["abstract"] or "", row["year"],
                        tuple(dict.fromkeys([*row["references"], *references])), field, category)
        if not (title.strip() or abstract.strip()):
            raise CitegraphError("give a paper id, or a title and/or an abstract")
        return Seed("", title.strip(), abstract.strip(), year, tuple(dict.fromkeys(references)), field, category)

    # -- recommending ------------------------------------------------------------------
    def recommend(self, paper: str | None = None, *, k: int = 20, **seed_fields) -> list[Recommendation]:
        """The top ``k`` recommendations for a paper id or a new paper (see :meth:`seed`)."""
        return self.recommend_for(self.seed(paper, **seed_fields), k)

    def recommend_for(self, seed: Seed, k: int = 20) -> list[Recommendation]:
        candidates = self.candidates(seed)
        ranked = sorted(candidates.values(), key=lambda c: (-self.score(c.features), c.id))[:k]
        return [Recommendation(c.id, c.meta.get("title") or "", c.meta.get("year"), round(self.score(c.features), 6),
                               c.signals) for c in ranked]

    def score(self, features: dict[str, float]) -> float:
        """The weighted sum of the features; ``text`` weighs every retriever's score that has
        no weight of its own (``text:<name>``)."""
        total = self.weights.get("bias", 0.0)
        for name, value in features.items():
            fallback = self.weights.get("text", 0.0) if name.startswith("text:") else 0.0
            total += self.weights.get(name, fallback) * value
        return total

    def candidates(self, seed: Seed) -> dict[str, _Candidate]:
        """Every allowed candidate with its features and signals."""
        exclude = [seed.id, *seed.references] if seed.id else list(seed.references)
        blocked = set(exclude)
        found: dict[str, _Candidate] = {}

        def get(cid: str) -> _Candidate:
            return found.setdefault(cid, _Candidate(cid))

        text_top: list[str] = []
        for retriever in self.retrievers:
            [ranking] = retriever.search([seed.document], self.text_depth + len(blocked) + 1)
            ranking = [h for h in ranking if h.id not in blocked][: self.text_depth]
            if not ranking:
                continue
            high, low = ranking[0].score, ranking[-1].score
            for position, hit in enumerate(ranking, start=1):
                value = (hit.score - low) / (high - low) if high > low else 1.0
                candidate = get(hit.id)
                candidate.features[f"text:{retriever.name}"] = value
                candidate.signals.append(Signal(retriever.name, value, f"{retriever.name} rank {position}"))
            text_top += [h.id for h in ranking[: self.enrich_depth]]

        refs = list(seed.references)
        if refs:
            for query, name, template in (
                    ("recommend/cited_by_references", "cited_by_references", "cited by {n} of your references"),
                    ("recommend/coupled_with_seed", "coupling", "cites {n} of your references")):
                for row in self.store.run(query, refs=refs, exclude=exclude, limit=self.graph_depth):
                    get(row["id"]).signals.append(Signal(name, row["count"], template.format(n=row["count"])
                                                         + _path(row["via"], row["count"]), tuple(row["via"])))
            for row in self.store.run("recommend/cocited_with_references", refs=refs, exclude=exclude,
                                      seed=seed.id, limit=self.graph_depth):
                get(row["id"])
        if text_top:
            enriched = enrich(self.store, text_top, size=len(text_top) + self.graph_depth)
            for cid, frequency in enriched.frequency.items():
                if cid not in blocked:
                    get(cid).features["enrichment"] = math.log1p(frequency)
                    get(cid).signals.append(Signal("enrichment", frequency,
                                                   f"cited by {frequency} of the top text matches"))

        for row in self.store.run("recommend/features", ids=list(found), refs=refs, seed=seed.id):
            candidate = found[row["id"]]
            candidate.meta = row
            cited_by = next((s.value for s in candidate.signals if s.name == "cited_by_references"), 0)
            candidate.features.update({
                "cited_by_references": math.log1p(cited_by), "cocitation": math.log1p(row["cocitation"]),
                "coupling": math.log1p(row["coupling"]), "citations": math.log1p(row["citations"]),
                "overlap": row["overlap"]})
            if row["cocitation"]:
                candidate.signals.append(Signal("cocitation", row["cocitation"],
                                                f"co-cited with your references {row['cocitation']} times"))
            if row["citations"]:
                candidate.signals.append(Signal("citations", row["citations"],
                                                f"cited by {row['citations']} papers in the corpus"))
        return {cid: c for cid, c in found.items() if c.meta and self._allowed(seed, c.meta)}

    @staticmethod
    def _allowed(seed: Seed, meta: dict) -> bool:
        if meta["external"]:
            return False
        if seed.year is not None and meta["year"] is not None and meta["year"] > seed.year:
            return False
        if seed.field and seed.field not in meta["fields"]:
            return False
        return not seed.category or seed.category in meta["categories"]



# -- held-out citations: learning the weights and measuring the gain ----------------------
@dataclass(frozen=True, slots=True)
class HeldOut:
    seed: Seed
    held_out: str  # the reference removed from the seed: what should be recommended


def held_out_citations(store: GraphStore, n: int, seed: int = 0, min_refs: int = 3,
                       skip: int = 0) -> list[HeldOut]:
    """``n`` papers, each with one random reference held out (seeded); ``skip`` passes over
    the first papers of the same draw, so that training and test sets are disjoint."""
    from .evaluation.sampling import generator, sample

    rows = store.run("recommend/held_out", min_refs=min_refs)
    chosen = sample(rows, skip + n, generator(seed, "held-out"))[skip:]
    out = []
    for row in chosen:
        [held] = sample(sorted(row["references"]), 1, generator(seed, "held-out", row["id"]))
        refs = tuple(r for r in row["references"] if r != held)
        out.append(HeldOut(Seed(row["id"], row["title"] or "", row["abstract"] or "", row["year"], refs), held))
    return out


def train(recommender: Recommender, examples: Sequence[HeldOut]) -> dict[str, float]:
    """Weights learned by logistic regression: does a candidate's feature vector mark the
    held-out citation? Candidates of every example, balanced classes; the weights are the
    coefficients (their order is what ranks), stored as plain numbers."""
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for example in examples:
        for candidate in recommender.candidates(example.seed).values():
            rows.append(candidate.features)
            labels.append(int(candidate.id == example.held_out))
    if not any(labels):
        raise CitegraphError("no held-out citation was among the candidates: nothing to learn from")
    names = sorted({name for row in rows for name in row})
    matrix = [[row.get(name, 0.0) for name in names] for row in rows]
    model = LogisticRegression(class_weight="balanced", max_iter=1000).fit(matrix, labels)
    return {**{name: float(w) for name, w in zip(names, model.coef_[0])}, "bias": float(model.intercept_[0])}


def save_weights(path: Path, weights: dict[str, float], about: dict) -> None:
    Path(path).write_text(json.dumps({"weights": weights, **about}, indent=2) + "\n", encoding="utf-8")


def evaluate_held_out(recommender: Recommender, examples: Sequence[HeldOut], variants: dict[str, dict[str, float]],
                      k: int = 100, measures: Sequence[str] = ("R@5", "R@20", "MRR", "MAP")):
    """Each weighting's metrics on the held-out citations (one relevant paper per seed)."""
    from .evaluation.metrics import evaluate
    from .retrieval.base import Hit

    qrels = {e.seed.id: {e.held_out: 1} for e in examples}
    candidates = {e.seed.id: recommender.candidates(e.seed) for e in examples}
    results = {}
    for name, weights in variants.items():
        scorer = Recommender(recommender.store, weights=weights)
        run = {q: sorted((Hit(c.id, scorer.score(c.features)) for c in cs.values()), key=lambda h: (-h.score, h.id))[:k]
               for q, cs in candidates.items()}
        results[name] = evaluate(qrels, run, measures, depth=k)
    return results


def _path(via: Sequence[str], count: int, shown: int = 3) -> str:
    """': A, B, C, …' — the papers a graph signal goes through."""
    return ": " + ", ".join(via[:shown]) + (", …" if count > shown else "") if via else ""


def load_weights(path: Path) -> dict[str, float]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
        raise CitegraphError(f"{path}: expected {{\"weights\": {{feature: weight}}}}")
    return {str(k): float(v) for k, v in data["weights"].items()}


def recommendation_dict(r: Recommendation) -> dict:
    return {**asdict(r), "explanation": r.explanation()}
