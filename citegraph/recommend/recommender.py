"""Graph-aware recommendation: which papers should this paper cite, and why.

A *seed* is a paper in the graph (its text, year and references come from the graph) or
a new paper given as title + abstract, optionally with the references already chosen,
its year and a field or arXiv category to stay within. Candidates come from three sides:

* **text** — each configured retriever's top ``text_depth`` (BM25, a dense encoder, …);
* **contexts** — where the graph's edges carry citing sentences, the ``text_depth`` papers
  cited in sentences most like the seed's text (:mod:`citegraph.recommend.contexts`; the
  seed's own sentences never count);
* **graph** (Cypher, ``cypher/recommend/``) — papers cited by the seed's references, papers
  co-cited with them by other papers, papers coupled with the seed (citing its
  references), and the ego-network enrichment of the top text candidates (the papers
  they cite).

Every candidate then gets the same features from the graph — its links to the references
from the one ``recommend/neighbourhood`` statement (which runs while the retrievers score),
its metadata and citation count from ``recommend/features`` — computed so that the seed's
own citation edges never count (which also makes held-out citations a fair test):
co-citation with the references and coupling with the seed (both through at most
``fanout`` citing papers of each reference), citations by other papers, the MDCR overlap
O, plus each retriever's min–max normalised score and the contexts score (relative to the
best). The score is a weighted sum of the features — default weights, weights the user
sets, or weights learned by logistic regression on held-out citations of the graph
(:func:`train`). Candidates newer than the seed, outside the requested field or category,
already cited, the seed itself and ``:External`` stubs (no text to show) are left out. Ties are broken by id, so a recommendation is
deterministic.

Each recommendation carries its **explanation**: the signals that fired, with the graph
path behind them ("cited by 3 of your references: A, B, C").

A *library* (a set of papers, :meth:`Recommender.for_library`) is a seed whose references
are its papers ("cited by 4 of your papers"); *negative* papers give the candidates linked
to them a negative feature; *as of* a year, the Cypher counts no later citation and no
later paper is recommended. Learning the weights on held-out citations and measuring
them: :mod:`citegraph.recommend.held_out`. (Over 400 lines: the recommender is one
class whose candidate pipeline reads best in one place.)
"""

from __future__ import annotations

import heapq
import json
import math
import operator
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import repeat
from pathlib import Path

from ..errors import CitegraphError, NotFoundError
from ..graph import GraphStore
from ..library.entries import LibraryEntry, entry_from_id
from ..library.match import Match, PaperIndex, matched_ids
from .contexts import CitingSentences, ContextMatch
from ..retrieval.base import Document, Ranking, Retriever, rank
from ..retrieval.signals import Enriched, enrich
from ..retrieval.spec import Spec, parse_specs
from ..vocabulary import canonical_id

_FEATURE_COLUMNS = ("id", "title", "year", "external", "citations", "ingested")  # recommend/features
GRAPH_FEATURES = ("cited_by_references", "cocitation", "coupling", "citations", "overlap", "enrichment", "contexts")
DEFAULT_WEIGHTS = {"cited_by_references": 1.0, "cocitation": 0.5, "coupling": 0.5, "citations": 0.2,
                   "overlap": 1.0, "enrichment": 0.3, "contexts": 1.0, "text": 1.0, "negative": -1.0}
# Weights learned on held-out citations know no negative seeds: theirs push down this much.
_UNLEARNED = {"negative": DEFAULT_WEIGHTS["negative"]}


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
    negatives: tuple[str, ...] = ()  # papers the user does not want more of
    as_of: int | None = None  # the year of the view: nothing later recommended or used as evidence
    library: bool = False  # the references are the user's library (a set of seeds), not one paper's
    since: int | None = None  # only papers of this year or later (alerts: what is new for the seed)
    ingested_since: str | None = None  # …or ingested on this date (YYYY-MM-DD) or later (with ``since``)

    @property
    def mine(self) -> str:
        """What the references are to the user, in explanations."""
        return "your papers" if self.library else "your references"

    @property
    def document(self) -> Document:
        return Document(self.id or "seed", self.title, self.abstract)


@dataclass(frozen=True, slots=True)
class Asked:
    """A seed and how the entries the user gave were matched to the graph (:meth:`Recommender.ask`)."""

    seed: Seed
    library: list[Match]
    negatives: list[Match]

    @property
    def matches(self) -> list[Match]:
        return [*self.library, *self.negatives]


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
                 enrich_depth: int = 20, fanout: int = 100, cache_size: int = 0, close_store: bool = False,
                 contexts: bool = True):
        self.store = store
        self.retrievers = list(retrievers)
        self.weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
        self.text_depth, self.graph_depth, self.enrich_depth = text_depth, graph_depth, enrich_depth
        # Citing papers followed per reference for co-citation and coupling: bounds the
        # cost of hub references. With co-citation alone capped, R@20 on 300 held-out
        # ACL-200 citations was 0.513 for fanouts 50, 100, 200 and 1000 alike, while on a
        # 200k-paper graph the statement's p50 went 80 → 56 → 33 ms from 1000 to 200 to 50.
        self.fanout = fanout
        self.cache_size = cache_size  # seeds whose candidates are kept (0: none)
        self._cache: OrderedDict[Seed, dict[str, _Candidate]] = OrderedDict()
        self._lock = threading.Lock()
        self._text_thread: ThreadPoolExecutor | None = None
        self._close_store = close_store
        self._papers: PaperIndex | None = None  # for matching library entries, loaded when first needed
        # the graph's citing sentences (.contexts), read when first needed; False: not wanted
        self._sentences: CitingSentences | bool | None = None if contexts else False

    @classmethod
    def open(cls, config=None, retrievers: str | Sequence[str | Spec] = ("bm25",), model: Path | None = None,
             **options) -> "Recommender":
        """A recommender on the configured graph (the embedded one by default) with retriever
        specs opened from ``<data dir>/indexes`` and, optionally, learned weights."""
        from ..config import Config
        from ..graph import open_store

        config = config or Config.load()
        opened = [spec.open(Path(config.data_dir) / "indexes") for spec in parse_specs(retrievers)]
        weights = load_weights(model) if model else None
        return cls(open_store(config), opened, weights=weights, close_store=True, **options)

    def close(self) -> None:
        if self._text_thread is not None:
            self._text_thread.shutdown(wait=False, cancel_futures=True)
            self._text_thread = None
        if self._close_store:
            self.store.close()

    def __enter__(self) -> "Recommender":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the seed ----------------------------------------------------------------------
    def ask(self, paper: str | None = None, *, papers: Sequence[str | LibraryEntry] = (), title: str = "",
            abstract: str = "", references: Sequence[str] = (), year: int | None = None, field: str | None = None,
            category: str | None = None, negatives: Sequence[str | LibraryEntry] = (), as_of: int | None = None,
            since: int | None = None, ingested_since: str | None = None) -> Asked:
        """The one way from what a user gives to a seed, for the CLI, the HTTP service and the
        MCP tools: a paper id or a new paper's text (:meth:`seed`), or a library (``papers``:
        ids, DOIs, arXiv ids or parsed entries, :meth:`library_seed`), with negatives given the
        same ways; entries are matched to the graph (:meth:`match`) and those that match
        nothing are left out."""
        if papers and (paper or title.strip() or abstract.strip() or references or year is not None):
            raise CitegraphError("give a library (papers) or a paper (its id, title, abstract, references, year), "
                                 "not both")
        unwanted = self.match(negatives)
        mine = self.match(papers)
        views = {"negatives": matched_ids(unwanted), "as_of": as_of, "field": field, "category": category,
                 "since": since, "ingested_since": ingested_since}
        if not papers:
            return Asked(self.seed(paper, title=title, abstract=abstract, references=references, year=year, **views),
                         mine, unwanted)
        return Asked(self.library_seed(matched_ids(mine), **views), mine, unwanted)

    def seed(self, paper: str | None = None, *, title: str = "", abstract: str = "",
             references: Sequence[str] = (), year: int | None = None, field: str | None = None,
             category: str | None = None, negatives: Sequence[str] = (), as_of: int | None = None,
             since: int | None = None, ingested_since: str | None = None) -> Seed:
        """What to recommend for: a paper of the graph (its text, year and references; a given
        ``year`` overrides its own, extra ``references`` join its own) or a new paper's text;
        ``as_of`` (a year) hides what came later, ``negatives`` push their neighbours down,
        ``since`` (a year) recommends only papers of that year or later, or ingested on
        ``ingested_since`` (a date) or later."""
        views = {"negatives": tuple(dict.fromkeys(negatives)), "as_of": as_of, "since": since,
                 "ingested_since": ingested_since}
        references = [canonical_id(r) for r in references]
        if paper:
            paper = canonical_id(paper)
            rows = self.store.plain("recommend/seed", id=paper)
            if not rows:
                raise NotFoundError(f"no paper with id {paper!r} in the graph")
            row = rows[0]
            return Seed(row["id"], row["title"] or "", row["abstract"] or "",
                        _earliest(row["year"] if year is None else year, as_of),
                        tuple(dict.fromkeys([*row["references"], *references])), field, category, **views)
        if not (title.strip() or abstract.strip()):
            raise CitegraphError("give a paper id, or a title and/or an abstract")
        return Seed("", title.strip(), abstract.strip(), _earliest(year, as_of), tuple(dict.fromkeys(references)),
                    field, category, **views)

    def library_seed(self, papers: Sequence[str], *, negatives: Sequence[str] = (), as_of: int | None = None,
                     field: str | None = None, category: str | None = None, since: int | None = None,
                     ingested_since: str | None = None) -> Seed:
        """A set of graph papers (a library) as one seed: its papers take the place of a
        paper's references (their neighbourhoods are joined; "cited by 4 of your papers"),
        their titles and abstracts are the text query."""
        papers = list(dict.fromkeys(papers))
        if not papers:
            raise NotFoundError("no paper of the library is in the graph: nothing to recommend for")
        [row] = self.store.run("recommend/library", ids=papers, as_of=as_of)
        if row["missing"]:
            raise NotFoundError(f"no paper with id {row['missing'][0]!r} in the graph")
        return Seed("", " ".join(row["titles"]), " ".join(row["abstracts"]), as_of, tuple(papers), field, category,
                    tuple(dict.fromkeys(negatives)), as_of, library=True, since=since, ingested_since=ingested_since)

    # -- recommending ------------------------------------------------------------------
    def recommend(self, paper: str | None = None, *, k: int = 20, **seed_fields) -> list[Recommendation]:
        """The top ``k`` recommendations for a paper id or a new paper (see :meth:`seed`)."""
        return self.recommend_for(self.seed(paper, **seed_fields), k)

    def for_library(self, papers: Sequence[str | LibraryEntry], k: int = 20, *,
                    negatives: Sequence[str | LibraryEntry] = (), **options) -> list[Recommendation]:
        """The top ``k`` recommendations for a library: paper ids, DOIs, arXiv ids or parsed
        entries (:func:`citegraph.library.entries.read_library`), matched to the graph
        (:meth:`match`; entries that match nothing are left out), with negative seeds."""
        return self.recommend_for(self.ask(papers=papers, negatives=negatives, **options).seed, k)

    def match(self, entries: Sequence[str | LibraryEntry]) -> list[Match]:
        """Library entries (or ids, DOIs, arXiv ids) matched to graph papers: how, or why not."""
        if not entries:
            return []
        with self._lock:
            if self._papers is None:
                self._papers = PaperIndex.load(self.store)
        return [self._papers.match(e if isinstance(e, LibraryEntry) else entry_from_id(e)) for e in entries]

    def recommend_for(self, seed: Seed, k: int = 20) -> list[Recommendation]:
        candidates = self.candidates(seed)
        top = rank({cid: self.score(c.features) for cid, c in candidates.items()}, k)
        return [Recommendation(hit.id, candidates[hit.id].meta.get("title") or "", candidates[hit.id].meta.get("year"),
                               round(hit.score, 6), candidates[hit.id].signals) for hit in top]

    def score(self, features: dict[str, float]) -> float:
        """The weighted sum of the features; ``text`` weighs every retriever's score that has
        no weight of its own (``text:<name>``)."""
        total = self.weights.get("bias", 0.0)
        for name, value in features.items():
            fallback = self.weights.get("text", 0.0) if name.startswith("text:") else _UNLEARNED.get(name, 0.0)
            total += self.weights.get(name, fallback) * value
        return total

    def candidates(self, seed: Seed) -> dict[str, _Candidate]:
        """Every allowed candidate with its features and signals (cached per seed when the
        recommender has a ``cache_size``; the result is shared: do not change it)."""
        if not self.cache_size:
            return self._candidates(seed)
        with self._lock:
            if seed in self._cache:
                self._cache.move_to_end(seed)
                return self._cache[seed]
        found = self._candidates(seed)
        with self._lock:
            self._cache[seed] = found
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return found

    def _candidates(self, seed: Seed) -> dict[str, _Candidate]:
        refs = list(seed.references)
        exclude = [seed.id, *refs, *seed.negatives] if seed.id else [*refs, *seed.negatives]
        blocked = set(exclude)
        found: dict[str, _Candidate] = {}

        def get(cid: str) -> _Candidate:
            return found.setdefault(cid, _Candidate(cid))

        # The text retrievers score, and the graph enriches their top matches, on the
        # recommender's text thread while this thread asks the graph for the references'
        # neighbourhood (one statement): the enrichment is off the request's critical path.
        texts = self._text_executor().submit(self._text_side, seed, blocked) if self.retrievers else None
        try:
            rows = self._neighbourhood(seed, refs, exclude)
            against = self._neighbourhood(seed, list(seed.negatives), exclude, cocitation=False)
        finally:
            rankings, enriched = texts.result() if texts else ([], None)
        for name, ranking in rankings:
            high, low = ranking[0].score, ranking[-1].score
            for position, hit in enumerate(ranking, start=1):
                value = (hit.score - low) / (high - low) if high > low else 1.0
                candidate = get(hit.id)
                candidate.features[f"text:{name}"] = value
                candidate.signals.append(Signal(name, value, f"{name} rank {position}"))
        matches = self._context_matches(seed, blocked)
        for match in matches:
            candidate = get(match.cited)
            candidate.features["contexts"] = match.score / matches[0].score
            candidate.signals.append(Signal("contexts", candidate.features["contexts"], match.explanation(),
                                            (match.citing,)))

        links = _links(rows)
        for row in rows:  # each kind's top graph_depth by citing papers (or references), then id
            for _, cid in heapq.nsmallest(self.graph_depth, zip(map(operator.neg, row["citers"]), row["ids"])):
                get(cid)
        frequency = {cid: n for cid, n in enriched.frequency.items() if cid not in blocked} if enriched else {}
        for cid in frequency:
            get(cid)
        for cid, candidate in found.items():
            for kind, name, template in (("cited_by", "cited_by_references", "cited by {n} of {mine}"),
                                         ("coupling", "coupling", "cites {n} of {mine}")):
                if link := links[kind].get(cid):
                    count, _, via = link
                    candidate.signals.append(Signal(name, count, template.format(n=count, mine=seed.mine)
                                                    + _path(via, count), tuple(via)))
            if cid in frequency:
                candidate.features["enrichment"] = math.log1p(frequency[cid])
                candidate.signals.append(Signal("enrichment", frequency[cid],
                                                f"cited by {frequency[cid]} of the top text matches"))

        self._push_down(found, _links(against))
        features = self.store.plain("recommend/features", ids=list(found), seed=seed.id, as_of=seed.as_of,
                                  field=seed.field or None, category=seed.category or None)
        for values in (features[0]["candidates"] if features else []):
            row = dict(zip(_FEATURE_COLUMNS, values))
            candidate = found[row["id"]]
            cited_by, coupling, cocitation = (links[kind].get(row["id"], (0,))[0]
                                              for kind in ("cited_by", "coupling", "cocitation"))
            candidate.meta = {**row, "cocitation": cocitation, "coupling": coupling,
                              "overlap": (cited_by + coupling) / len(refs) if refs else 0.0}
            candidate.features.update({
                "cited_by_references": math.log1p(cited_by), "cocitation": math.log1p(cocitation),
                "coupling": math.log1p(coupling), "citations": math.log1p(row["citations"]),
                "overlap": candidate.meta["overlap"]})
            if cocitation:
                candidate.signals.append(Signal("cocitation", cocitation,
                                                f"co-cited with {seed.mine} {cocitation} times"))
            if row["citations"]:
                candidate.signals.append(Signal("citations", row["citations"],
                                                f"cited by {row['citations']} papers in the corpus"))
            candidate.signals += [Signal("new", 1.0, text) for text in _why_new(seed, candidate.meta)]
        return {cid: c for cid, c in found.items() if c.meta and self._allowed(seed, c.meta)}

    def citing_sentences(self) -> CitingSentences | None:
        """The graph's citing sentences (None: it has none, or the recommender was made without them)."""
        with self._lock:
            if self._sentences is None:
                self._sentences = CitingSentences.load(self.store) or False
            return self._sentences or None

    def _context_matches(self, seed: Seed, blocked: set[str]) -> list[ContextMatch]:
        """The papers cited in sentences most like the seed's text, seen through the seed's
        view: its own sentences hidden (a held-out citation's sentence is the answer), and
        as of a year, those of later papers."""
        sentences = self.citing_sentences()
        if sentences is None or not seed.document.text:
            return []
        return sentences.search(seed.document.text, self.text_depth, hidden=seed.id, as_of=seed.as_of,
                                exclude=blocked)

    def _neighbourhood(self, seed: Seed, refs: list[str], exclude: list[str], cocitation: bool = True) -> list[dict]:
        return self.store.plain("recommend/neighbourhood", refs=refs, exclude=exclude, seed=seed.id,
                              fanout=self.fanout, as_of=seed.as_of, cocitation=cocitation) if refs else []

    @staticmethod
    def _push_down(found: dict[str, _Candidate], against: dict[str, dict[str, tuple]]) -> None:
        """The ``negative`` feature of candidates linked to the negative seeds: how many of
        them cite the candidate or are cited by it (co-citation alone is too loose a link)."""
        for cid, candidate in found.items():
            via = tuple(dict.fromkeys(p for kind in ("cited_by", "coupling") if cid in against[kind]
                                      for p in against[kind][cid][2]))
            if via:
                candidate.features["negative"] = math.log1p(len(via))
                candidate.signals.append(Signal("negative", -len(via), f"linked to {len(via)} of the papers you "
                                                "marked as not wanted" + _path(via, len(via)), via))

    def _text_side(self, seed: Seed, blocked: set[str]) -> tuple[list[tuple[str, Ranking]], Enriched | None]:
        """The text rankings, and the ego-network enrichment of each one's top ``enrich_depth``."""
        rankings = self._text_rankings(seed.document, blocked)
        text_top = [hit.id for _, ranking in rankings for hit in ranking[: self.enrich_depth]]
        enriched = enrich(self.store, text_top, size=len(text_top) + self.graph_depth, max_year=seed.as_of,
                          as_of=seed.as_of) if text_top else None
        return rankings, enriched

    def _text_rankings(self, document: Document, blocked: set[str]) -> list[tuple[str, Ranking]]:
        """Each retriever's top ``text_depth`` outside ``blocked`` (retrievers that found nothing left out)."""
        out = []
        for retriever in self.retrievers:
            [ranking] = retriever.search([document], self.text_depth + len(blocked) + 1)
            ranking = [h for h in ranking if h.id not in blocked][: self.text_depth]
            if ranking:
                out.append((retriever.name, ranking))
        return out

    def _text_executor(self) -> ThreadPoolExecutor:
        """One thread for every text search of this recommender: retrievers are not
        thread-safe (Lucene is reached through pyjnius, whose method objects Python threads
        swap — see retrieval/bm25_lucene.py), and a JVM-attached thread should live on, not come
        and go with each request of a server's thread pool."""
        with self._lock:
            if self._text_thread is None:
                self._text_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-text")
            return self._text_thread

    @staticmethod
    def _allowed(seed: Seed, meta: dict) -> bool:
        if meta["external"]:
            return False
        if seed.year is not None and meta["year"] is not None and meta["year"] > seed.year:
            return False
        if seed.as_of is not None and meta["year"] is None:  # undated: cannot tell
            return False
        return seed.since is None or bool(_why_new(seed, meta))  # field and category: recommend/features


def _why_new(seed: Seed, meta: dict) -> list[str]:
    """Why a candidate is new for an alert (a seed with ``since``): published in or after
    that year, and/or ingested on or after ``ingested_since`` (papers ingested before the
    graph recorded dates have none). Empty without ``since``, or when it is not new."""
    if seed.since is None:
        return []
    reasons = []
    if meta["year"] is not None and meta["year"] >= seed.since:
        reasons.append(f"published in {meta['year']} (since {seed.since})")
    if seed.ingested_since and meta["ingested"] and meta["ingested"] >= seed.ingested_since:
        reasons.append(f"ingested on {meta['ingested']} (since {seed.ingested_since})")
    return reasons


def _links(rows: list[dict]) -> dict[str, dict[str, tuple[int, int, list[str]]]]:
    """recommend/neighbourhood's rows by kind: kind → paper id → (count, citers, via), every
    kind present. Built with zip, not paper by paper: a seed co-cites thousands of papers."""
    links: dict[str, dict[str, tuple[int, int, list[str]]]] = {"cited_by": {}, "coupling": {}, "cocitation": {}}
    for row in rows:
        links[row["kind"]] = dict(zip(row["ids"], zip(row["counts"], row["citers"], row["via"] or repeat(()))))
    return links


def _earliest(year: int | None, as_of: int | None) -> int | None:
    return min((y for y in (year, as_of) if y is not None), default=None)


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
