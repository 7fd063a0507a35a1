"""Which paper to cite here: recommendations for each citation slot of a draft being written.

One code path for ``citegraph cite``, ``POST /cite`` and the MCP tool ``cite``. For each slot
of a :class:`~citegraph.library.draft.Draft`:

* **the query** is the slot's own text first (:func:`query_text`, :class:`SlotQuery`): its
  clause (:attr:`Slot.clause`, the words between the citation before it, or the sentence's
  start, and the slot), its sentence and its neighbours, each part repeated as often as its
  weight, so two slots of one sentence, or of two sentences side by side, ask different
  questions; the draft's title and abstract are a *second field*, searched once per
  draft by the same retrievers: a candidate of the slot that they also find gets the feature
  ``draft`` (the retrievers' best normalised score) with weight :data:`DRAFT_WEIGHT`. Appended
  to each slot's text instead, they made every slot of a two-topic draft (dependency parsing,
  machine translation) get the same, the draft's main topic's, papers;
* **the draft's references** (its bibliography, matched to graph papers with the library
  matcher, :meth:`Recommender.match`) are the seed's references, exactly as ``recommend``'s:
  all of them seed the graph side of every slot ("cited by 2 of your references", co-cited
  with them) — their neighbourhood is gathered once per draft (:meth:`Recommender.neighbourhood`)
  — but a reference is blocked (:attr:`Seed.blocked`) only at the slots whose
  sentence already cites it (``\\cite{smith09,?}`` blocks smith09 there): cited in another
  sentence it stays :attr:`Seed.suggestible`, since the author may cite it again here.
  Entries that match no graph paper are listed, not fatal;
* **the first stage** is the recommender's: its retrievers (``--with``, BM25 by default),
  the citing-sentence contexts and the graph around the references and the top text matches,
  scored by its weights, as of a date when asked; the graph side counts **per slot**: a
  candidate's features that are the same at every slot of the draft
  (:data:`DRAFT_WIDE_FEATURES`: cited by, co-cited with, citing the references, the overlap,
  its citation count) are scaled by how well it fits this slot's text, ``floor + (1 − floor)
  · fit`` with ``fit`` its best normalised text or contexts score for the slot (0 when the
  slot's text does not find it). Unscaled, they let a well-connected paper fill every slot of
  a paragraph; scaled, it must earn its place at each;
* **the model** (a sentence-transformers folder, :class:`CiteModel`), when given, re-ranks the
  first stage's top :data:`RERANK_DEPTH`: the cosine between the slot's text (its clause,
  sentence and neighbours once each: :func:`model_text`) and each
  candidate's title and abstract, min–max normalised over them as each retriever's score is,
  is the feature ``model`` with weight :data:`MODEL_WEIGHT`, added to the first stage's score.
  Only candidates are encoded, each once (the embedding cache of
  :mod:`citegraph.retrieval.dense.pool_encoder`).

The two weights (:class:`Fusion`) are the model's: ``citegraph cite tune`` tunes them on
contexts of the model's training side it was not trained on and writes them into the model's
``citegraph.json`` (``cite.fusion``), which :class:`CiteModel` reads; a model without them, or
no model, takes the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import CitegraphError, UsageError
from ..library.draft import OTHER_MARKER, SENT_BIB, SLOT_MARKER, Draft, Slot
from ..library.match import Match
from ..retrieval.base import Document, Hit
from ..retrieval.dense.model_location import missing_model_files
from .candidates import Candidate, Candidates, Fate, Recommendation, Signal
from .model_folder import fusion_weights
from .recommender import Neighbourhood, Recommender
from .seed import Seed, View
from .signals.text import TextMatches
from .weights import Weights

# The evaluated best row of `evaluate local` fuses the fine-tuned bi-encoder with the first
# stage with equal say (RRF); here the model's normalised cosine weighs as much as a
# retriever's normalised score (the default "text" weight).
MODEL_WEIGHT = 1.0
# The draft's title and abstract say what the whole paper is about, the slot's text what this
# citation is for: the draft's field weighs half a retriever's score of the slot's text.
DRAFT_WEIGHT = 0.5
RERANK_DEPTH = 100  # first-stage candidates the model re-ranks (the rest keep their order below them)
ENCODE_BATCH = 1_000  # papers read from the graph and cached at a time by `cite encode`
_MARKERS = re.compile(re.escape(SLOT_MARKER) + "|" + re.escape(OTHER_MARKER))
# the features the same at every slot of a draft: a candidate's links to the draft's references
# and its citation count (the graph side's prior); scaled per slot by the candidate's fit to it
DRAFT_WIDE_FEATURES = ("cited_by_references", "cocitation", "coupling", "overlap", "citations")


@dataclass(frozen=True)
class SlotQuery:
    """How a slot's query is made: how many times its clause, its sentence and its neighbours
    are repeated in it, and the floor of the per-slot scale of :data:`DRAFT_WIDE_FEATURES`.

    Repeating a part is a weighted multi-part query in one search: BM25 (both backends: bm25s
    sums a query's term ids, Lucene's bag-of-words query boosts a term by its count) and the
    citing-sentence scores sum over the query's terms, so a part repeated ``w`` times adds
    ``w`` times its own BM25 score — the weighted sum of each part's score, the parts' scores
    fused with these weights, at one search's cost. The clause is inside the sentence, so its
    words weigh ``clause + sentence``.

    The defaults are ``citegraph cite tune-query``'s choice (:mod:`citegraph.operations.cite_query`)
    on ACL-200 ∪ ScisummNet's training side — whole drafts of citing papers older than every test
    draft of ``evaluate cite``, never a test draft: the best per-slot MRR@50 inside drafts of 48
    points (the grid and figures: docs/cite.md). A floor of 0 lets a draft-wide link count only
    as far as the slot's own words find the paper; every higher floor scored lower."""

    clause: int = 2
    sentence: int = 2
    neighbours: int = 1
    graph_floor: float = 0.0

    def __post_init__(self) -> None:
        if min(self.clause, self.sentence, self.neighbours) < 0 or not 0.0 <= self.graph_floor <= 1.0:
            raise CitegraphError(f"{self}: the parts' weights are counts (0 or more), the floor between 0 and 1")


@dataclass(frozen=True)
class Fusion:
    """The weights of the draft's field and of the model's cosine beside the first stage's."""

    draft: float = DRAFT_WEIGHT
    model: float = MODEL_WEIGHT

    @classmethod
    def of(cls, folder: Path) -> Fusion:
        """The weights a model's card records (``cite.fusion``), else the defaults; the folder
        checked first (:mod:`.model_folder`: one line naming the file and field)."""
        return cls(**fusion_weights(Path(folder)))


@dataclass
class Suggestion(Recommendation):
    """A recommendation for one slot, with its rank in the first stage and the model's cosine."""

    first_stage: int = 0  # 1-based rank before the model (the recommender's order)
    model: float | None = None  # cosine of the slot's text and the paper (None: no model, or not re-ranked)


@dataclass(frozen=True)
class SlotSuggestions:
    slot: Slot
    suggestions: list[Suggestion]
    why: list[Fate] = field(default_factory=list)  # what became of each paper asked about (--why)

    def as_dict(self) -> dict:
        """A slot as JSON answers it: where it is, its text, what it suggests and why."""
        from dataclasses import asdict

        slot = self.slot
        return {
            "slot": slot.id,
            "where": slot.where,
            "file": str(slot.file) if slot.file else None,
            "line": slot.line,
            "column": slot.column,
            "command": slot.command,
            "sentence": slot.sentence,
            "unresolved": list(slot.unresolved),
            "suggestions": [{**asdict(s), "explanation": s.explanation()} for s in self.suggestions],
        }


@dataclass(frozen=True)
class Cited:
    """A draft's slots with their suggestions, and how its references met the graph."""

    draft: Draft
    slots: list[SlotSuggestions]
    references: list[Match] = field(default_factory=list)  # the bibliography's entries, matched or not
    model: str | None = None  # the re-ranking model's folder; None: first stage and graph features only
    fusion: Fusion = Fusion()

    @property
    def missing(self) -> list[str]:
        """The bibliography entries the graph lacks (listed, not fatal)."""
        return [m.entry.where for m in self.references if not m.paper]

    @property
    def ranking(self) -> str:
        weights = f"weights: model {self.fusion.model:g}, draft {self.fusion.draft:g}"
        return (
            f"first stage fused with the model {self.model} ({weights})"
            if self.model
            else f"first stage and graph features only (no --model: no re-ranking; draft weight {self.fusion.draft:g})"
        )

    def as_dict(self) -> dict:
        return {
            "source": self.draft.source,
            "format": self.draft.format,
            "ranking": self.ranking,
            "model": self.model,
            "slots": [s.as_dict() for s in self.slots],
            "references": [m.as_dict() for m in self.references],
            "missing": self.missing,
            "warnings": list(self.draft.warnings),
        }


class CiteModel:
    """A sentence-transformers folder (e.g. one ``citegraph evaluate local --save`` wrote) as the re-ranker of a
    slot's candidates: only they are encoded, through the embedding cache in ``cache_dir``."""

    def __init__(self, folder: Path, recommender: Recommender, cache_dir: Path):
        from ..retrieval.corpus import documents_by_id
        from ..retrieval.dense.encoders import get_encoder
        from ..retrieval.dense.pool_encoder import PoolEncoder, VectorCache

        folder = Path(folder)
        if not folder.is_dir():
            raise CitegraphError(f"--model {folder}: not a folder (a sentence-transformers model folder)")
        missing = list(
            dict.fromkeys(
                [*missing_model_files(folder), *([] if (folder / "modules.json").is_file() else ["modules.json"])]
            )
        )
        if missing:
            raise UsageError(f"--model {folder}: not a sentence-transformers model folder (no {', no '.join(missing)})")
        self.fusion = Fusion.of(folder)  # before loading anything: the files checked
        encoder = get_encoder(f"hf:{folder.resolve()}")
        self.folder = folder
        self.store = recommender.store
        self.pool = PoolEncoder(
            encoder, VectorCache(cache_dir, encoder), lambda ids: documents_by_id(recommender.store, ids), "model"
        )

    def encode_graph(self, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Every paper of the graph put in the embedding cache ahead of the first slot
        (``citegraph cite encode``), so that a slot encodes only its own text: each slot now has
        candidates of its own, most of them new to the cache until the graph is encoded.
        Returns (papers, papers encoded now; the rest were cached); ``progress`` hears the
        papers done and encoded after each batch."""
        from ..batches import batched
        from ..retrieval.corpus import documents

        papers = 0
        for batch in batched(documents(self.store), ENCODE_BATCH):
            self.pool.cache.vectors(batch)
            papers += len(batch)
            if progress:
                progress(papers, self.pool.cache.encoded)
        return papers, self.pool.cache.encoded

    def cosines(self, texts: Sequence[str], pools: Sequence[Sequence[str]]) -> list[dict[str, float]]:
        """Each text's cosine with each paper of its pool. The texts, and the pools' papers not
        yet cached, are encoded in one run for a whole draft: longest first across its slots,
        so batches pad less than slot by slot."""
        if not texts:
            return []
        queries = [Document(f"slot {n}", text) for n, text in enumerate(texts)]
        rankings = self.pool.search(queries, max(map(len, pools), default=0), pools=pools)
        return [{hit.id: hit.score for hit in ranking} for ranking in rankings]


@dataclass(frozen=True)
class DraftSide:
    """What every slot of a draft shares, gathered once: its references matched to the graph,
    what the draft's title and abstract find (:func:`draft_matches`) and the references'
    neighbourhood."""

    matches: list[Match]
    paper_of: dict[str, str]  # bibliography key → graph paper
    references: tuple[str, ...]
    about: dict[str, tuple[Signal, float]]
    neighbourhood: Neighbourhood

    def cited_in(self, slot: Slot) -> set[str]:
        """The references the slot's sentence cites already (blocked at the slot)."""
        return {self.paper_of[key] for key in slot.cited_in_sentence if key in self.paper_of}


def draft_side(recommender: Recommender, draft: Draft, as_of: int | None, first_text: str) -> DraftSide:
    """The draft's :class:`DraftSide`; ``first_text`` (a slot's query) seeds the neighbourhood's
    statement, which depends only on the references and the view."""
    matches = recommender.match(list(draft.references.values()))
    paper_of = {key: m.paper for key, m in zip(draft.references, matches, strict=True) if m.paper}
    references = tuple(dict.fromkeys(paper_of.values()))
    # the references' neighbourhood (graph statements) is gathered while the draft's title and
    # abstract are searched: the two overlap as a slot's text side and graph side do
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-neighbourhood") as graph_side:
        gathering = graph_side.submit(
            recommender.neighbourhood, _seed(recommender, first_text, references, set(), as_of)
        )
        about = draft_matches(recommender, draft, references)
        neighbourhood = gathering.result()
    return DraftSide(matches, paper_of, references, about, neighbourhood)


def cite(
    recommender: Recommender,
    draft: Draft,
    *,
    k: int = 10,
    as_of: int | None = None,
    model: CiteModel | None = None,
    fusion: Fusion | None = None,
    query: SlotQuery = SlotQuery(),
    why: Sequence[str] = (),
) -> Cited:
    """The top ``k`` suggestions for each slot of ``draft`` (see the module's docstring), and
    at each slot what became of the papers ``why`` asks about (:meth:`Recommender.fates`);
    ``fusion``: the weights (default: the model's, else :class:`Fusion`'s defaults); ``query``:
    how each slot's query is made. The references' neighbourhood is gathered once, for every slot."""
    fusion = fusion or (model.fusion if model else Fusion())
    texts = []
    for slot in draft.slots:
        texts.append((query_text(slot, query), model_text(slot, query)))
        if not texts[-1][0]:
            raise CitegraphError(f"{slot.where}: the slot's sentence has no words to search with")
    side = draft_side(recommender, draft, as_of, texts[0][0])
    asked = []  # each slot's candidates and their first-stage order, before the model
    for slot, (text, _) in zip(draft.slots, texts, strict=True):
        candidates = slot_candidates(recommender, text, side, side.cited_in(slot), as_of, query=query)
        asked.append((candidates, first_stage(candidates, recommender.weights, fusion)))
    pools = [[hit.id for hit in first[:RERANK_DEPTH]] for _, first in asked]
    cosines = model.cosines([encoded for _, encoded in texts], pools) if model else [{} for _ in pools]
    slots = []
    for slot, (text, _), (candidates, first), fit in zip(draft.slots, texts, asked, cosines, strict=True):
        ranked = reranked(candidates, first, fit, recommender.weights, fusion, max(k, len(candidates)) if why else k)
        seed = _seed(recommender, text, side.references, side.cited_in(slot), as_of) if why else None
        fates = recommender.fates(seed, why, candidates, ranked, k, side.neighbourhood.links) if seed else []
        slots.append(SlotSuggestions(slot, ranked[:k], fates))
    return Cited(draft, slots, side.matches, str(model.folder) if model else None, fusion)


def slot_candidates(
    recommender: Recommender,
    text: str,
    side: DraftSide,
    cited_here: set[str],
    as_of: int | None,
    *,
    query: SlotQuery = SlotQuery(),
) -> dict[str, Candidate]:
    """A slot's first-stage candidates with the ``draft`` feature: every reference of the draft
    seeds the graph side (through its gathered neighbourhood), those ``cited_here`` are blocked,
    and each candidate's :data:`DRAFT_WIDE_FEATURES` are scaled by its fit to ``text``
    (:func:`fitted`)."""
    seed = _seed(recommender, text, side.references, cited_here, as_of)
    found = recommender.candidates(seed, side.neighbourhood)
    return {cid: _with(fitted(c, query.graph_floor), side.about.get(cid)) for cid, c in found.items()}


def _seed(
    recommender: Recommender, text: str, references: Sequence[str], cited_here: set[str], as_of: int | None
) -> Seed:
    seed = recommender.ask(abstract=text, references=references, view=View(as_of=as_of)).seed
    return replace(seed, suggestible=tuple(r for r in seed.references if r not in cited_here))


def fitted(candidate: Candidate, floor: float) -> Candidate:
    """The candidate with its :data:`DRAFT_WIDE_FEATURES` scaled by ``floor + (1 − floor) ·
    fit``, ``fit`` its best normalised score from the slot's text (each retriever's, the
    contexts'), 0 when the text did not find it (a copy: the recommender's are shared)."""
    if floor >= 1.0 or not any(name in candidate.features for name in DRAFT_WIDE_FEATURES):
        return candidate
    features = candidate.features
    fit = max((v for name, v in features.items() if name.startswith("text:") or name == "contexts"), default=0.0)
    scale = floor + (1.0 - floor) * min(max(fit, 0.0), 1.0)
    scaled = {name: v * scale if name in DRAFT_WIDE_FEATURES else v for name, v in features.items()}
    return Candidate(candidate.id, scaled, list(candidate.signals), candidate.facts)


def suggest(
    candidates: dict[str, Candidate],
    weights: Weights,
    text: str,
    fusion: Fusion,
    model: CiteModel | None,
    k: int,
) -> list[Suggestion]:
    """One slot's top ``k``: the first stage's order (:func:`first_stage`), its top
    :data:`RERANK_DEPTH` re-scored with the model's cosine of ``text`` (the slot's
    :func:`model_text`; :func:`reranked`)."""
    first = first_stage(candidates, weights, fusion)
    [cosines] = model.cosines([text], [[hit.id for hit in first[:RERANK_DEPTH]]]) if model and first else [{}]
    return reranked(candidates, first, cosines, weights, fusion, k)


def first_stage(candidates: dict[str, Candidate], weights: Weights, fusion: Fusion) -> list[Hit]:
    """Every candidate in the first stage's order: the recommender's weights and the draft's."""
    return Weights({**weights.values, "draft": fusion.draft}).rank(candidates, len(candidates))


def reranked(
    candidates: dict[str, Candidate],
    first: list[Hit],
    cosines: dict[str, float],
    weights: Weights,
    fusion: Fusion,
    k: int,
) -> list[Suggestion]:
    """The top ``k`` once the model's ``cosines`` (of the first stage's top) are a feature."""
    position = {hit.id: rank for rank, hit in enumerate(first, start=1)}
    scored = {cid: _with(c, _model_signal(cid, cosines)) for cid, c in candidates.items()}
    ranked = Weights({**weights.values, "draft": fusion.draft, "model": fusion.model}).rank(scored, k)
    return [_suggestion(scored[hit.id], hit.score, position[hit.id], cosines.get(hit.id)) for hit in ranked]


def draft_matches(recommender: Recommender, draft: Draft, references: Sequence[str]) -> dict[str, tuple[Signal, float]]:
    """The draft's title and abstract searched once by the recommender's retrievers: each
    paper found, its ``draft`` signal and feature (the best retriever's normalised score)."""
    if not (draft.title or draft.abstract):
        return {}
    found = Candidates()
    TextMatches.gather(
        recommender.retrievers, Document("draft", draft.title, draft.abstract), set(references), recommender.text_depth
    ).add_to(found, Seed())
    about = {}
    for cid, candidate in found.items():
        best = max(candidate.signals, key=lambda s: s.value)
        about[cid] = (Signal("draft", best.value, f"the draft's title and abstract: {best.text}"), best.value)
    return about


def sent_draft(
    *,
    context: str | None = None,
    draft: str | None = None,
    format: str = "latex",
    bib: str | None = None,
    window: int = 1,
) -> Draft:
    """A context or a draft's text sent to the service (HTTP, MCP), with its bibliography's
    BibTeX text: read from memory (:func:`~citegraph.library.draft.read_sent_draft`), never
    from the server's files. A sent draft may not name files (``\\input``, ``\\bibliography``,
    front matter's ``bibliography``, however spelled): they would be the server's."""
    from ..library.draft import context_slot, read_sent_draft
    from ..library.entries import parse_library

    if (context is None) == (draft is None):
        raise CitegraphError("give a context or a draft, not both")
    if draft is not None:
        return read_sent_draft(draft, format=format, bib=bib, window=window)
    assert context is not None  # one of the two, checked above
    read = context_slot(context, window=window, sent=True)
    if bib is None:
        return read
    entries = parse_library(bib, SENT_BIB)
    return replace(read, references={e.where: e for e in entries})


def model_text(slot: Slot, query: SlotQuery = SlotQuery()) -> str:
    """What the model encodes for a slot: the parts its query weighs, each once, its clause
    first — an encoder has no term weights for repetition to raise, only a longer input to
    read (:class:`CiteModel` truncates the end)."""
    return query_text(slot, SlotQuery(min(query.clause, 1), min(query.sentence, 1), min(query.neighbours, 1)))


def query_text(slot: Slot, query: SlotQuery = SlotQuery()) -> str:
    """A slot's query (:class:`SlotQuery`): its clause, its sentence and its neighbours, each
    repeated its weight's times, without the citation markers (not words of the text)."""
    parts = (
        [slot.clause] * query.clause + [slot.sentence] * query.sentence + [*slot.before, *slot.after] * query.neighbours
    )
    return " ".join(_MARKERS.sub(" ", " ".join(parts)).split())


def _model_signal(cid: str, cosines: dict[str, float]) -> tuple[Signal, float] | None:
    """The ``model`` signal, and its feature: the cosine min–max normalised over the re-ranked."""
    if cid not in cosines:
        return None
    high, low = max(cosines.values()), min(cosines.values())
    value = (cosines[cid] - low) / (high - low) if high > low else 1.0
    return Signal("model", round(cosines[cid], 4), f"model cosine {cosines[cid]:.3f}"), value


def _with(candidate: Candidate, added: tuple[Signal, float] | None) -> Candidate:
    """The candidate with one more signal and its feature (a copy: the recommender's are shared)."""
    if added is None:
        return candidate
    signal, value = added
    return Candidate(
        candidate.id, {**candidate.features, signal.name: value}, [*candidate.signals, signal], candidate.facts
    )


def _suggestion(candidate: Candidate, score: float, first_stage: int, cosine: float | None) -> Suggestion:
    facts = candidate.facts
    assert facts is not None  # every candidate the recommender returns is described
    signals = [Signal("first_stage", first_stage, f"first stage rank {first_stage}"), *candidate.signals]
    return Suggestion(
        candidate.id,
        facts.title or "",
        facts.year,
        round(score, 6),
        signals,
        first_stage,
        None if cosine is None else round(cosine, 6),
    )
