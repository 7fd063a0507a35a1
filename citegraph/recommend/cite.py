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
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import CitegraphError, UsageError
from ..library.draft import OTHER_MARKER, SENT_BIB, SLOT_MARKER, Draft, Slot
from ..library.match import Match
from ..retrieval.base import Document
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

    The defaults were chosen on the training side only (ACL-200 ∪ ScisummNet's citing
    sentences of citing papers up to the time split's cut, 2011, each asked as of the year
    before its citing paper with that paper's other references as the bibliography — the
    discipline of :mod:`citegraph.operations.cite_fusion`; never a test context): on 100
    pseudo-drafts (a citing paper's one-citation sentences, one per paragraph; 406 slots)
    MRR@50 0.242 for ``SlotQuery(0, 1, 1, 1.0)`` — the query of before, the sentence and its
    neighbours alike, the graph side the same at every slot — and 0.277 for the defaults; on
    800 single sentences 0.263 and 0.311. Clause 1 and sentence 1 scored as clause 2 and
    sentence 2 (the same ratio inside the sentence); the latter halves the neighbours' say,
    which the training sentences, rarely with neighbours, could not measure and whole drafts
    favoured (``--window 0`` helped there). Floors 0 and 0.25 were within 0.002 MRR on every
    sample; 0.25 keeps some of the graph's evidence for a paper the slot's words miss (the
    figures: docs/cite.md)."""

    clause: int = 2
    sentence: int = 2
    neighbours: int = 1
    graph_floor: float = 0.25

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
        self.pool = PoolEncoder(
            encoder, VectorCache(cache_dir, encoder), lambda ids: documents_by_id(recommender.store, ids), "model"
        )

    def cosines(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        [ranking] = self.pool.search([Document("slot", text)], len(ids), pools=[ids])
        return {hit.id: hit.score for hit in ranking}


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
    matches = recommender.match(list(draft.references.values()))
    paper_of = {key: m.paper for key, m in zip(draft.references, matches, strict=True) if m.paper}
    references = tuple(dict.fromkeys(paper_of.values()))
    texts = []
    for slot in draft.slots:
        texts.append((query_text(slot, query), model_text(slot, query)))
        if not texts[-1][0]:
            raise CitegraphError(f"{slot.where}: the slot's sentence has no words to search with")
    # the references' neighbourhood (graph statements) is gathered while the draft's title and
    # abstract are searched: the two overlap as a slot's text side and graph side do
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-neighbourhood") as graph_side:
        gathering = graph_side.submit(
            recommender.neighbourhood, _seed(recommender, texts[0][0], references, set(), as_of)
        )
        about = draft_matches(recommender, draft, references)
        neighbourhood = gathering.result()
    slots = []
    for slot, (text, encoded) in zip(draft.slots, texts, strict=True):
        cited_here = {paper_of[key] for key in slot.cited_in_sentence if key in paper_of}
        candidates = slot_candidates(
            recommender, text, references, cited_here, about, as_of, query=query, neighbourhood=neighbourhood
        )
        ranked = suggest(candidates, recommender.weights, encoded, fusion, model, max(k, len(candidates)) if why else k)
        seed = _seed(recommender, text, references, cited_here, as_of) if why else None
        fates = recommender.fates(seed, why, candidates, ranked, k, neighbourhood.links) if seed else []
        slots.append(SlotSuggestions(slot, ranked[:k], fates))
    return Cited(draft, slots, matches, str(model.folder) if model else None, fusion)


def slot_candidates(
    recommender: Recommender,
    text: str,
    references: Sequence[str],
    cited_here: set[str],
    about: dict[str, tuple[Signal, float]],
    as_of: int | None,
    *,
    query: SlotQuery = SlotQuery(),
    neighbourhood: Neighbourhood | None = None,
) -> dict[str, Candidate]:
    """A slot's first-stage candidates with the ``draft`` feature: every reference seeds the
    graph side (through ``neighbourhood`` when the draft's was gathered), those ``cited_here``
    are blocked, and each candidate's :data:`DRAFT_WIDE_FEATURES` are scaled by its fit to
    ``text`` (the module's docstring)."""
    seed = _seed(recommender, text, references, cited_here, as_of)
    found = recommender.candidates(seed, neighbourhood)
    return {cid: _with(_fitted(c, query.graph_floor), about.get(cid)) for cid, c in found.items()}


def _seed(
    recommender: Recommender, text: str, references: Sequence[str], cited_here: set[str], as_of: int | None
) -> Seed:
    seed = recommender.ask(abstract=text, references=references, view=View(as_of=as_of)).seed
    return replace(seed, suggestible=tuple(r for r in seed.references if r not in cited_here))


def _fitted(candidate: Candidate, floor: float) -> Candidate:
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
    first_stage: Weights,
    text: str,
    fusion: Fusion,
    model: CiteModel | None,
    k: int,
) -> list[Suggestion]:
    """The top ``k``: the first stage's order (its weights and the draft's), its top
    :data:`RERANK_DEPTH` re-scored with the model's cosine of ``text`` (the slot's
    :func:`model_text`)."""
    first_weights = Weights({**first_stage.values, "draft": fusion.draft})
    first = first_weights.rank(candidates, len(candidates))
    position = {hit.id: rank for rank, hit in enumerate(first, start=1)}
    cosines = model.cosines(text, [hit.id for hit in first[:RERANK_DEPTH]]) if model and first else {}
    scored = {cid: _with(c, _model_signal(cid, cosines)) for cid, c in candidates.items()}
    ranked = Weights({**first_weights.values, "model": fusion.model}).rank(scored, k)
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
