"""Graph-aware recommendation: which papers should this paper cite, and why.

A *seed* is a paper in the graph (its text, year and references come from the graph) or
a new paper given as title + abstract, optionally with the references already chosen,
its year and a field or arXiv category to stay within. Candidates come from three sides:

* **text** — each configured retriever's top ``text_depth`` (BM25, a dense encoder, …);
* **contexts** — where the graph's edges carry citing sentences, the ``text_depth`` papers
  cited in sentences most like the seed's text (:mod:`citegraph.recommend.signals.contexts`; the
  seed's own sentences never count);
* **graph** (Cypher, ``cypher/recommend/``) — papers cited by the seed's references, papers
  co-cited with them by other papers, papers coupled with the seed (citing its
  references), and the ego-network enrichment of the top text candidates (the papers
  they cite).

Every candidate then gets the same features from the graph — its links to the references
from the one ``recommend/neighbourhood`` statement (which runs while the retrievers score),
its metadata and citation count from ``recommend/features`` (for the neighbourhood's
candidates while the retrievers still score, for the rest after) — computed so that the seed's
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
them: :mod:`citegraph.recommend.held_out`. Each signal is a module of :mod:`.signals`; the
seed and its view are :mod:`.seed`, the candidates :mod:`.candidates`, the scoring
:mod:`.weights`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from ..errors import CitegraphError, NotFoundError
from ..graph import GraphStore
from ..library.entries import LibraryEntry, entry_from_id
from ..library.match import Match, PaperIndex, matched_ids
from ..retrieval.base import Retriever
from ..retrieval.citing_sentences import CitingSentences, KeptSentences
from ..retrieval.spec import Spec, parse_specs
from ..vocabulary import canonical_id, counted
from .candidates import Candidate, Candidates, Facts, Fate, Recommendation, Stage
from .seed import Asked, Seed, View, earliest
from .signals.contexts import ContextMatches
from .signals.facts import FactRows, allowed, blocked_by, describe, fetch_facts
from .signals.neighbourhood import KINDS, Links, Unwanted
from .signals.text import Enrichment, TextMatches
from .weights import Weights


class Recommender:
    """Recommends citations from the graph behind ``store`` and the given text retrievers.

    >>> with Recommender.open() as rec:                         # doctest: +SKIP
    ...     for r in rec.recommend(paper="P07-2045", k=5):
    ...         print(r.id, r.title, r.explanation())
    """

    def __init__(
        self,
        store: GraphStore,
        retrievers: Sequence[Retriever] = (),
        *,
        weights: Weights | Mapping[str, float] | None = None,
        text_depth: int = 100,
        graph_depth: int = 100,
        enrich_depth: int = 20,
        fanout: int = 100,
        cache_size: int = 0,
        close_store: bool = False,
        contexts: bool = True,
        kept_sentences: KeptSentences | None = None,
    ):
        self.store = store
        self.retrievers = list(retrievers)
        self.weights = weights if isinstance(weights, Weights) else Weights() if weights is None else Weights(weights)
        self.text_depth, self.graph_depth, self.enrich_depth = text_depth, graph_depth, enrich_depth
        # Citing papers followed per reference for co-citation and coupling: bounds the
        # cost of hub references. With co-citation alone capped, R@20 on 300 held-out
        # ACL-200 citations was 0.513 for fanouts 50, 100, 200 and 1000 alike, while on a
        # 200k-paper graph the statement's p50 went 80 → 56 → 33 ms from 1000 to 200 to 50.
        self.fanout = fanout
        self.cache_size = cache_size  # seeds whose candidates are kept (0: none)
        self._cache: OrderedDict[Seed, Candidates] = OrderedDict()
        self._lock = threading.Lock()
        self._text_thread: ThreadPoolExecutor | None = None
        self._close_store = close_store
        self._papers: PaperIndex | None = None  # for matching library entries, loaded when first needed
        # the graph's citing sentences (.contexts), read when first needed; False: not wanted
        self._contexts = contexts
        self._sentences: CitingSentences | Literal[False] | None = None if contexts else False
        self._kept_sentences = kept_sentences  # a copy of them on disk, while the graph does not change

    @classmethod
    def open(
        cls, config=None, retrievers: str | Sequence[str | Spec] = ("bm25",), model: Path | None = None, **options
    ) -> Recommender:
        """A recommender on the configured graph (the embedded one by default) with retriever
        specs opened from ``<data dir>/indexes`` and, optionally, learned weights.

        On a resident embedded graph (``citegraph graph start``, ``citegraph serve``'s) the
        graph's citing sentences are kept in ``<data dir>/cache`` under the graph's state
        (:class:`KeptSentences`): the next command on the same graph reads them from there,
        in a tenth of the time. A command that starts its own server keeps none: the server's
        stop changes the state.

        The retrievers open on the recommender's text thread, where they will search (a
        Lucene index starts its JVM: half a second), while this thread opens a resident graph
        and reads its citing sentences. When no server runs they are opened first: a missing
        index is said before a server starts for the command."""
        from ..config import Config
        from ..graph import DATABASE, embedded_server, open_store

        config = config or Config.load()
        weights = Weights.load(model) if model else None
        specs, indexes = parse_specs(retrievers), Path(config.data_dir) / "indexes"
        server = embedded_server(config) if config.embedded else None
        kept = None  # on a resident graph only
        if server is not None and server.status() is not None:
            database = config.database or DATABASE
            kept = KeptSentences(
                config.data_folder("cache") / "citing-sentences.npz", lambda: server.database_state(database)
            )
            options.setdefault("kept_sentences", kept)
        text_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-text")
        opening = text_thread.submit(lambda: [spec.open(indexes) for spec in specs])
        try:
            opened = None if kept is not None else opening.result()
            rec = cls(open_store(config), weights=weights, close_store=True, **options)
        except BaseException:
            text_thread.shutdown(wait=False, cancel_futures=True)
            raise
        rec._text_thread = text_thread
        try:
            rec.citing_sentences()  # while a resident graph's retrievers open
            rec.retrievers = opening.result() if opened is None else opened
        except BaseException:
            opening.cancel()
            rec.close()
            raise
        return rec

    def close(self) -> None:
        if self._text_thread is not None:
            self._text_thread.shutdown(wait=False, cancel_futures=True)
            self._text_thread = None
        if self._close_store:
            self.store.close()

    def __enter__(self) -> Recommender:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the seed ----------------------------------------------------------------------
    def ask(
        self,
        paper: str | None = None,
        *,
        papers: Sequence[str | LibraryEntry] = (),
        title: str = "",
        abstract: str = "",
        references: Sequence[str] = (),
        year: int | None = None,
        negatives: Sequence[str | LibraryEntry] = (),
        view: View = View(),
    ) -> Asked:
        """The one way from what a user gives to a seed, for the CLI, the HTTP service and the
        MCP tools: a paper id or a new paper's text (:meth:`seed`), or a library (``papers``:
        ids, DOIs, arXiv ids or parsed entries, :meth:`library_seed`), with negatives given the
        same ways; entries are matched to the graph (:meth:`match`) and those that match
        nothing are left out. The matched negatives join ``view``."""
        if papers and (paper or title.strip() or abstract.strip() or references or year is not None):
            raise CitegraphError(
                "give a library (papers) or a paper (its id, title, abstract, references, year), not both"
            )
        unwanted = self.match(negatives)
        mine = self.match(papers)
        view = replace(view, negatives=tuple(dict.fromkeys([*view.negatives, *matched_ids(unwanted)])))
        if not papers:
            return Asked(
                self.seed(paper, title=title, abstract=abstract, references=references, year=year, view=view),
                mine,
                unwanted,
            )
        return Asked(self.library_seed(matched_ids(mine), view=view), mine, unwanted)

    def seed(
        self,
        paper: str | None = None,
        *,
        title: str = "",
        abstract: str = "",
        references: Sequence[str] = (),
        year: int | None = None,
        view: View = View(),
    ) -> Seed:
        """What to recommend for: a paper of the graph (its text, year and references; a given
        ``year`` overrides its own, extra ``references`` join its own) or a new paper's text,
        seen through ``view``."""
        view = replace(view, negatives=tuple(dict.fromkeys(view.negatives)))
        references = [canonical_id(r) for r in references]
        if paper:
            paper = canonical_id(paper)
            rows = self.store.plain("recommend/seed", id=paper)
            if not rows:
                raise NotFoundError(f"no paper with id {paper!r} in the graph")
            row = rows[0]
            return Seed(
                row["id"],
                row["title"] or "",
                row["abstract"] or "",
                earliest(row["year"] if year is None else year, view.as_of),
                tuple(dict.fromkeys([*row["references"], *references])),
                view,
            )
        if not (title.strip() or abstract.strip()):
            raise CitegraphError("give a paper id, or a title and/or an abstract")
        return Seed(
            "", title.strip(), abstract.strip(), earliest(year, view.as_of), tuple(dict.fromkeys(references)), view
        )

    def library_seed(self, papers: Sequence[str], *, view: View = View()) -> Seed:
        """A set of graph papers (a library) as one seed: its papers take the place of a
        paper's references (their neighbourhoods are joined; "cited by 4 of your papers"),
        their titles and abstracts are the text query."""
        papers = list(dict.fromkeys(papers))
        if not papers:
            raise NotFoundError("no paper of the library is in the graph: nothing to recommend for")
        [row] = self.store.run("recommend/library", ids=papers, as_of=view.as_of)
        if row["missing"]:
            raise NotFoundError(f"no paper with id {row['missing'][0]!r} in the graph")
        view = replace(view, negatives=tuple(dict.fromkeys(view.negatives)))
        return Seed(
            "", " ".join(row["titles"]), " ".join(row["abstracts"]), view.as_of, tuple(papers), view, library=True
        )

    # -- recommending ------------------------------------------------------------------
    def recommend(self, paper: str | None = None, *, k: int = 20, **seed_fields) -> list[Recommendation]:
        """The top ``k`` recommendations for a paper id or a new paper (see :meth:`seed`)."""
        return self.recommend_for(self.seed(paper, **seed_fields), k)

    def for_library(
        self,
        papers: Sequence[str | LibraryEntry],
        k: int = 20,
        *,
        negatives: Sequence[str | LibraryEntry] = (),
        view: View = View(),
    ) -> list[Recommendation]:
        """The top ``k`` recommendations for a library: paper ids, DOIs, arXiv ids or parsed
        entries (:func:`citegraph.library.entries.read_library`), matched to the graph
        (:meth:`match`; entries that match nothing are left out), with negative seeds."""
        return self.recommend_for(self.ask(papers=papers, negatives=negatives, view=view).seed, k)

    def match(self, entries: Sequence[str | LibraryEntry]) -> list[Match]:
        """Library entries (or ids, DOIs, arXiv ids) matched to graph papers: how, or why not."""
        if not entries:
            return []
        with self._lock:
            if self._papers is None:
                self._papers = PaperIndex.load(self.store)
        return [self._papers.match(e if isinstance(e, LibraryEntry) else entry_from_id(e)) for e in entries]

    def forget_graph(self) -> None:
        """Forget what was read of the graph and kept (the library matcher's papers, the citing
        sentences, the seeds' candidates): the graph grew under a running service (``POST
        /explore/grow``). The text indexes stay as built: papers added reach text search once
        ``citegraph index`` rebuilds them."""
        with self._lock:
            self._papers = None
            self._sentences = None if self._contexts else False
            self._cache.clear()

    def recommend_for(self, seed: Seed, k: int = 20) -> list[Recommendation]:
        return self.ranked(self.candidates(seed), k)

    def ranked(self, candidates: Mapping[str, Candidate], k: int) -> list[Recommendation]:
        """The top ``k`` of a seed's candidates (:meth:`candidates`) by the weights, as recommended."""
        return [recommendation(candidates[hit.id], hit.score) for hit in self.weights.rank(candidates, k)]

    def fates(
        self,
        seed: Seed,
        ids: Sequence[str],
        candidates: Mapping[str, Candidate],
        ranked: Sequence[Recommendation],
        k: int,
        links: Links | None = None,
    ) -> list[Fate]:
        """What became of each of ``ids`` (papers of the graph) for ``seed``, whose
        ``candidates`` are ``ranked`` in full (best first) and cut at ``k``: a candidate's rank,
        score, features and signals; for another paper the stage that dropped it (:data:`Stage`).
        Only what is asked is looked at, after the ranking: the facts of the papers that are no
        candidate (one statement) and, when one of them is allowed, the references' ``links``
        (gathered here when not given)."""
        position = {found.id: (rank, found) for rank, found in enumerate(ranked, start=1)}
        dropped = self._dropped(seed, [pid for pid in dict.fromkeys(ids) if pid not in position], links)
        fates = []
        for pid in ids:
            if pid not in position:
                fates.append(dropped[pid])
                continue
            rank, found = position[pid]
            stage: Stage = "recommended" if rank <= k else "below k"
            why = f"rank {rank} of {len(candidates)}" + ("" if rank <= k else f", below k = {k}")
            features = dict(candidates[pid].features)
            fates.append(
                Fate(pid, stage, why, found.title, rank, len(candidates), found.score, features, found.signals)
            )
        return fates

    def _dropped(self, seed: Seed, ids: Sequence[str], links: Links | None) -> dict[str, Fate]:
        """Why each of ``ids``, no candidate of ``seed``, is none: blocked by the seed (itself,
        its references it already cites, the papers not wanted) or by its view (the filter of
        :meth:`_candidates`, :func:`blocked_by`; a paper outside the field or category has no
        facts), else linked to the references but cut by the graph side's ``graph_depth``
        ("not enriched"), else found by nothing ("not retrieved")."""
        rows = fetch_facts(self.store, ids, seed) if ids else {}
        fates: dict[str, Fate] = {}
        allowed_ids = []
        for pid in ids:
            row = rows.get(pid)
            title = row[1] if row else None
            reason = _blocked_by_seed(seed, pid) or (blocked_by(seed, Facts(*row[1:6])) if row else _outside(seed.view))
            if reason:
                fates[pid] = Fate(pid, "blocked", f"blocked: {reason}", title)
            else:
                allowed_ids.append((pid, title))
        if allowed_ids and links is None and seed.references:
            links = Links.gather(self.store, seed, seed.references, self.fanout)
        for pid, title in allowed_ids:
            linked = [(kind, links.counts[kind].get(pid, 0)) for kind in KINDS] if links else []
            said = [LINKED[kind].format(n=n, times=counted(n, "time")) for kind, n in linked if n]
            fates[pid] = (
                Fate(
                    pid,
                    "not enriched",
                    f"not enriched: linked to {seed.mine} in the graph ({', '.join(said)}) but not among "
                    f"the top {self.graph_depth} of its kind, nor among the text matches",
                    title,
                )
                if said
                else Fate(
                    pid,
                    "not retrieved",
                    f"not retrieved: not among the top {self.text_depth} text matches of the seed's text or "
                    f"its citing-sentence matches, nor the papers the top {self.enrich_depth} cite most, "
                    f"and not linked to {seed.mine} in the graph",
                    title,
                )
            )
        return fates

    def candidates(self, seed: Seed, neighbourhood: Neighbourhood | None = None) -> Candidates:
        """Every allowed candidate with its features and signals (cached per seed when the
        recommender has a ``cache_size``; the result is shared: do not change it). A
        ``neighbourhood`` gathered before (:meth:`neighbourhood`) for the same references and
        view is used instead of asking the graph again."""
        if not self.cache_size:
            return self._candidates(seed, neighbourhood)
        with self._lock:
            if seed in self._cache:
                self._cache.move_to_end(seed)
                return self._cache[seed]
        found = self._candidates(seed, neighbourhood)
        with self._lock:
            self._cache[seed] = found
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return found

    def neighbourhood(self, seed: Seed) -> Neighbourhood:
        """The references' neighbourhood of ``seed`` (the ``recommend/neighbourhood`` statement
        for its references and for its negatives) with its graph candidates and their facts:
        what every seed with the same references and view shares — a draft's slots, which
        differ only in their text and in the references each blocks. Gathered with only the
        negatives (and the seed) excluded, so that it serves a slot that blocks no reference;
        a slot's blocked references are left out of its candidates (:meth:`candidates`)."""
        open_seed = replace(seed, suggestible=seed.references)
        links = Links.gather(self.store, open_seed, seed.references, self.fanout)
        unwanted = Unwanted(Links.gather(self.store, open_seed, seed.view.negatives, self.fanout, cocitation=False))
        graph_candidates, rows, asked = self._graph_candidates(links, open_seed)
        return Neighbourhood(
            seed.references, seed.view, links, unwanted, tuple(graph_candidates), rows, frozenset(asked)
        )

    def _candidates(self, seed: Seed, neighbourhood: Neighbourhood | None = None) -> Candidates:
        # The text retrievers score, and the graph enriches their top matches, on the
        # recommender's text thread while this thread asks the graph for the references'
        # neighbourhood (one statement; none when it was gathered before) and, while the text
        # side still runs, for the facts of the graph's candidates and scores the citing
        # sentences (read first, when a command's first seed needs them): the text side is the
        # request's critical path.
        if neighbourhood is not None and (neighbourhood.references, neighbourhood.view) != (seed.references, seed.view):
            raise ValueError("a neighbourhood gathered for other references or another view")
        texts = self._text_executor().submit(self._text_side, seed) if self.retrievers else None
        try:
            if neighbourhood is None:
                links = Links.gather(self.store, seed, seed.references, self.fanout)
                unwanted = Unwanted(Links.gather(self.store, seed, seed.view.negatives, self.fanout, cocitation=False))
                graph_candidates, rows, asked = self._graph_candidates(links, seed)
            else:
                links, unwanted = neighbourhood.links, neighbourhood.unwanted
                graph_candidates, rows, asked = (
                    list(neighbourhood.graph_candidates),
                    dict(neighbourhood.rows),
                    set(neighbourhood.asked),
                )
            contexts = ContextMatches.gather(self.citing_sentences(), seed, self.text_depth)
        finally:
            text, enrichment = texts.result() if texts else (TextMatches([]), Enrichment({}))
        found = Candidates()
        text.add_to(found, seed)
        contexts.add_to(found, seed)
        blocked = seed.blocked  # a shared neighbourhood's papers include the references this seed blocks
        for cid in graph_candidates:
            if cid not in blocked:
                found.at(cid)
        enrichment.add_candidates(found)
        for evidence in (links, enrichment, unwanted):
            evidence.add_to(found, seed)
        if rest := [cid for cid in found if cid not in asked]:
            rows.update(fetch_facts(self.store, rest, seed))
        describe(found, seed, links, rows)
        return Candidates((cid, c) for cid, c in found.items() if c.facts and allowed(seed, c.facts))

    def _graph_candidates(self, links: Links, seed: Seed) -> tuple[list[str], FactRows, set[str]]:
        """Each kind's top ``graph_depth`` papers that are not stubs, with the facts of every
        paper asked (and which were asked: a paper outside the view's field has no row).
        Co-citation counts stubs too (``recommend/neighbourhood``); their facts tell them
        apart, and the next papers of the kind take their places."""
        rows: FactRows = {}
        asked: set[str] = set()
        stubs: set[str] = set()
        while True:
            chosen = links.candidates(self.graph_depth, stubs)
            if new := [cid for cid in chosen if cid not in asked]:
                rows.update(fetch_facts(self.store, new, seed))
                asked.update(new)
            if not (found := {cid for cid in chosen if cid in rows and rows[cid][3]}):
                return chosen, rows, asked
            stubs |= found

    def citing_sentences(self) -> CitingSentences | None:
        """The graph's citing sentences (None: it has none, or the recommender was made without them)."""
        with self._lock:
            if self._sentences is None:
                kept = self._kept_sentences
                self._sentences = (kept.load(self.store) if kept else CitingSentences.load(self.store)) or False
            return self._sentences or None

    def _text_side(self, seed: Seed) -> tuple[TextMatches, Enrichment]:
        """The text rankings, and the ego-network enrichment of each one's top ``enrich_depth``."""
        text = TextMatches.gather(self.retrievers, seed.document, seed.blocked, self.text_depth)
        top = text.top(self.enrich_depth)
        return text, Enrichment.gather(self.store, top, len(top) + self.graph_depth, seed)

    def _text_executor(self) -> ThreadPoolExecutor:
        """One thread for every text search of this recommender: retrievers are not
        thread-safe (Lucene is reached through pyjnius, whose method objects Python threads
        swap — see retrieval/bm25/lucene.py), and a JVM-attached thread should live on, not come
        and go with each request of a server's thread pool."""
        with self._lock:
            if self._text_thread is None:
                self._text_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-text")
            return self._text_thread


@dataclass(frozen=True)
class Neighbourhood:
    """A seed's references' neighbourhood, gathered once (:meth:`Recommender.neighbourhood`)
    for every seed with these references and this view."""

    references: tuple[str, ...]
    view: View
    links: Links
    unwanted: Unwanted
    graph_candidates: tuple[str, ...]  # each kind's top graph_depth papers that are not stubs
    rows: FactRows  # the facts of every paper asked (do not change: copied per seed)
    asked: frozenset[str]


def _blocked_by_seed(seed: Seed, pid: str) -> str | None:
    """Why ``pid`` is never a candidate of ``seed`` (:attr:`Seed.excluded`), in words; None: it may be."""
    if pid == seed.id:
        return "the seed itself"
    if pid in seed.view.negatives:
        return "marked as not wanted"
    if pid in seed.blocked:
        return f"already cited (one of {seed.mine})"
    return None


def _outside(view: View) -> str:
    """Why a paper of the graph has no facts in ``view``: its field or category is another."""
    limits = [f"the field {view.field!r}"] * bool(view.field) + [f"the category {view.category!r}"] * bool(
        view.category
    )
    return "outside " + " or ".join(limits)


#: How each kind of link to the references reads in a "not enriched" paper's ``--why``.
LINKED = {
    "cited_by": "cited by {n} of them",
    "coupling": "cites {n} of them",
    "cocitation": "co-cited with them {times}",
}


def recommendation(candidate: Candidate, score: float) -> Recommendation:
    """A described candidate (every one :meth:`Recommender.candidates` returns) as recommended."""
    facts = candidate.facts
    assert facts is not None
    return Recommendation(candidate.id, facts.title or "", facts.year, round(score, 6), candidate.signals)
