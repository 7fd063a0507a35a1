"""One benchmark protocol, one harness, one registry by name.

A **benchmark** is what a paper's table is computed from: queries, the documents they are
answered from, judgements (qrels), optionally the pool each query may be answered from,
and the benchmark's own official measures and table layout. Each benchmark implements
:class:`Benchmark`: ``score(retrievers, out, log)`` ranks with the given retrievers (already
constructed objects with ``.name`` and ``.search(queries, k, pools)``; naming them is the
caller's business) or with the benchmark's own systems, and returns :class:`Scores`.

:func:`run` is the one harness: it scores a benchmark and writes, for every benchmark
alike, ``results.json`` (configuration, tables, per-query values), ``results.csv``,
``results.md`` and the tables' figures (:mod:`.report`).

The **registry** holds every benchmark by name with the options it declares
(:class:`Option`, typed, no click here): ``citegraph evaluate <name>`` is generated from it,
so adding a benchmark means registering it. Registrations are light (a builder that
imports its benchmark when called), so listing benchmarks costs no heavy import. Higher
layers (local recommendation, contextualisation, the recommender) register their own.

Retriever-over-pools benchmarks (large-scale pools, MDCR) share :class:`Topics` and
:func:`score_topics`: queries, qrels and pools put to a retriever and scored by
:func:`.metrics.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import CitegraphError
from ..retrieval.base import Document, Query, Ranking, Retriever
from .metrics import DEPTH, Evaluation, Qrels, evaluate
from .report import Table, draw, write_results

if TYPE_CHECKING:
    from ..graph import GraphStore

Log = Callable[[str], None]


def quiet(message: str) -> None:
    """The default log: say nothing."""


@dataclass(frozen=True)
class Topics:
    """Queries (in order), their judgements and, optionally, the pool each may be answered from."""

    queries: Mapping[str, Query]
    qrels: Qrels
    pools: Sequence[Collection[str]] | None = None
    leave_out_query: bool = False  # a query paper can sit in the pool it is ranked in: never rank it

    def rank(self, retriever: Retriever, k: int, depth: int = DEPTH) -> dict[str, Ranking]:
        """Each query's top ``depth`` of the ``k`` hits asked for."""
        rankings = retriever.search(list(self.queries.values()), k, self.pools)
        return {q: [h for h in ranking if not self.leave_out_query or h.id != q][:depth]
                for q, ranking in zip(self.queries, rankings)}


def score_topics(retriever: Retriever, topics: Topics, measures: Sequence[str], k: int,
                 depth: int = DEPTH) -> Evaluation:
    """``retriever`` on ``topics``: ranked (:meth:`Topics.rank`) and scored with ``measures``."""
    return evaluate(topics.qrels, topics.rank(retriever, k, depth), measures, depth)


@dataclass
class Scores:
    """What a benchmark computed: its tables, its configuration, every per-query value,
    and ``details`` a caller in Python may want (not written)."""

    tables: list[Table]
    config: dict[str, Any]
    per_query: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Results(Scores):
    """:class:`Scores` as written by :func:`run`: where, and the figures drawn."""

    out: Path = Path()
    figures: list[Path] = field(default_factory=list)


class Benchmark(Protocol):
    """A benchmark scores retrievers (or its own systems) and lays out its tables."""

    @property
    def name(self) -> str: ...  # read-only: frozen dataclasses implement it

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log) -> Scores:
        """Rank and score; ``out`` may receive the benchmark's own artefacts (runs, indexes)."""
        ...


class WithDocuments(Benchmark, Protocol):
    """A benchmark bringing its own documents (MDCR's release files): retrievers are indexed over them."""

    def documents(self) -> list[Document]: ...


def run(benchmark: Benchmark, retrievers: Sequence[Retriever], out: str | Path, *, log: Log = quiet) -> Results:
    """The harness: score ``benchmark`` and write results.json/.csv/.md and figures to ``out``."""
    out = Path(out)
    scores = benchmark.score(list(retrievers), out, log)
    write_results(out, scores.config, scores.tables, scores.per_query)
    return Results(scores.tables, scores.config, scores.per_query, scores.details, out, draw(scores.tables, out))


# -- the registry ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One option a registered benchmark takes, declared beside it; the CLI makes it a flag.

    ``type``: ``str``, ``int``, ``float``, ``bool`` (a flag; ``"--x/--no-x"`` in ``flag``
    for a pair), ``Path`` (``path`` says whether an existing folder or file is wanted),
    ``list`` (comma-separated strings), ``"spec"`` / ``"specs"`` (one or several retriever
    specs, :mod:`citegraph.retrieval.spec`, parsed) or a tuple of choices.
    """

    name: str  # the builder's keyword
    flag: str
    help: str
    type: Any = str
    default: Any = None
    required: bool = False
    path: Literal["", "dir", "file", "any", "out"] = ""  # "any": an existing file or folder; "out": a new folder
    multiple: bool = False
    minimum: float | None = None
    maximum: float | None = None
    open_bounds: bool = False


@dataclass(frozen=True)
class RetrieverOption:
    """How a benchmark's retrievers are named on the command line and where they come from:
    ``indexes`` opens indexes built over the graph, ``documents`` indexes the benchmark's own
    documents (:class:`WithDocuments`) under ``<out>/indexes``."""

    source: Literal["indexes", "documents"]
    flag: str = "--with"
    default: str = "bm25"
    help: str = "Retrievers."  # the CLI adds the grammar
    run_files: bool = True  # --run: TREC run files of other tools, scored like the retrievers
    # the option that, when given, makes every retriever after the first a re-ranker of the
    # first's candidates (opened by :func:`citegraph.retrieval.rerank.open_for_rerank`)
    rerank: str = ""


@dataclass(frozen=True)
class Registered:
    """A benchmark by name: its command's help, its options and how to build it from them."""

    name: str
    help: str
    build: Callable[..., Benchmark]  # keyword arguments: the options (and ``store`` when ``graph``)
    options: tuple[Option, ...] = ()
    retrievers: RetrieverOption | None = None
    graph: bool = False  # the builder needs the graph (``store=``)


_REGISTRY: dict[str, Registered] = {}


def register(entry: Registered) -> Registered:
    if entry.name in _REGISTRY and _REGISTRY[entry.name] != entry:
        raise CitegraphError(f"two benchmarks are registered as {entry.name!r}")
    _REGISTRY[entry.name] = entry
    return entry


def registered() -> dict[str, Registered]:
    """Every registered benchmark by name (those of higher layers once their module is imported)."""
    return dict(_REGISTRY)


def get(name: str) -> Registered:
    if name not in _REGISTRY:
        raise CitegraphError(f"unknown benchmark {name!r}; choose from {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def build(name: str, *, store: GraphStore | None = None, **options: Any) -> Benchmark:
    """A registered benchmark built from its options (defaults for those not given)."""
    entry = get(name)
    values = {o.name: _default(o) for o in entry.options} | options
    return entry.build(**values, **({"store": store} if entry.graph else {}))


def _default(option: Option) -> Any:
    """An option's default as its builder takes it (retriever specs parsed, as the CLI parses them)."""
    if option.type in ("spec", "specs") and isinstance(option.default, str):
        from ..retrieval.spec import parse_specs

        specs = parse_specs(option.default) if option.default else []
        return specs[0] if option.type == "spec" else specs
    return option.default


# -- the benchmarks of this layer (each builder imports its benchmark when called) -----------
def _large_scale(pools_dir: Path) -> Benchmark:
    from .large_scale import LargeScale

    return LargeScale(Path(pools_dir))


def _mdcr(directory: Path, split: str) -> Benchmark:
    from .mdcr_eval import MDCR

    return MDCR(Path(directory), split)


def _csfcube(data_dir: Path, models: Sequence, facet_text: Sequence, run_file: Path | None, run_facet: str | None,
             work: Path | None, unranked: str) -> Benchmark:
    from .csfcube import CSFCube

    systems = (*map(str, models), *(f"{spec}:facet" for spec in facet_text))
    return CSFCube(Path(data_dir), systems, run_file, run_facet, work, unranked)


#: What a topic file's repeated id does (``--on-duplicate``, spelled as ``citegraph ingest``'s):
#: the later text wins (Anserini reads topics into a map), the first does, or it is an error.
TopicDuplicatePolicy = Literal["first", "last", "error"]
TOPIC_DUPLICATE_POLICIES: tuple[TopicDuplicatePolicy, ...] = ("first", "last", "error")
TOPIC_ON_DUPLICATE_HELP = ("A topic id given more than once: keep the last text (as Anserini reads topics) or the "
                           "first, with a warning naming both lines, or stop with an error.")


def _trec(topics: Path, qrels: Path, field: str | None, k: int, depth: int, rerank_depth: int | None,
          on_duplicate: TopicDuplicatePolicy, strict: bool) -> Benchmark:
    from .pools import read_qrels
    from .trec import TRECCollection, read_topics

    warnings: list[str] = []
    found = read_topics(topics, field, "error" if strict else on_duplicate, warnings.append)
    return TRECCollection(found, read_qrels(qrels), k, depth, rerank_depth, tuple(warnings))


register(Registered(
    "large-scale", "Tables 1 and 2 of Medić & Šnajder: MAP / nDCG / R@30 per pool size or per field.", _large_scale,
    (Option("pools_dir", "--pools", "A folder written by `citegraph pools dataset-level|field-level`.", Path,
            required=True, path="dir"),),
    RetrieverOption("indexes", help="Retrievers with built indexes (citegraph index …).")))
register(Registered(
    "mdcr", "Tables 3 and 4 of Medić & Šnajder: per field MAP / nDCG / R@5, and per candidate type.", _mdcr,
    (Option("directory", "--benchmark", "A folder with mdcr_<split>.json and mdcr_<split>_data.jsonl "
            "(ours or the official release).", Path, required=True, path="dir"),
     Option("split", "--split", "The split to score.", default="test")),
    RetrieverOption("documents", help="Retrievers, indexed over the benchmark's documents (under OUT/indexes).")))
register(Registered(
    "csfcube", "Faceted query-by-example on CSFCube, scored as its authors' script scores it.", _csfcube,
    (Option("data_dir", "--data", "The official CSFCube release folder.", Path, required=True, path="dir"),
     Option("models", "--with", "Retrievers over the release's candidates: BM25, fusions and <encoder>:maxsim read "
            "the facet sentences, an <encoder> the whole query paper.", "specs", "bm25"),
     Option("facet_text", "--facet-text", "Encoders that also read the facet sentences as one text (rows "
            "<encoder>:facet).", "specs", ""),
     Option("run_file", "--run", "Also score a TREC run file (qid pid_facet, or pid with --run-facet).", Path,
            path="file"),
     Option("run_facet", "--run-facet", "The facet of a run file of bare pids.", ("background", "method", "result")),
     Option("work", "--work", "Where indexes and embeddings are kept (default: OUT/indexes).", Path, path="out"),
     Option("unranked", "--unranked", "Pool members a ranking leaves out: not scored, as the official script "
            "(official), or appended in id order (append: citegraph's policy).", ("official", "append"), "official"))))
register(Registered(
    "trec", "Any TREC-style collection in the graph: R@k, nDCG@k, MAP, MRR, paired tests against the first "
    "retriever; one TREC run per retriever in OUT/runs.", _trec,
    (Option("topics", "--topics", "Topic file: TREC <top>/<topic>, qid<TAB>text, or JSONL.", Path, required=True,
            path="file"),
     Option("qrels", "--qrels", "TREC qrels (qid 0 doc grade); DOIs match whatever their case.", Path, required=True,
            path="file"),
     Option("field", "--field", "The topic text: title (default), desc, narr, or several joined with + (title+desc)."),
     Option("k", "-k", "The cut-off of R@k and nDCG@k.", int, 10),
     Option("depth", "--depth", "Papers each retriever ranks per topic (MAP, MRR).", int, 100),
     Option("rerank_depth", "--rerank-depth", "The first retriever's top N per topic, re-ranked by each of the others; "
            "a dense encoder encodes only those candidates (cached: a second run encodes only the topics).", int,
            minimum=1),
     Option("on_duplicate", "--on-duplicate", TOPIC_ON_DUPLICATE_HELP, TOPIC_DUPLICATE_POLICIES, "last"),
     Option("strict", "--strict", "Refuse a repeated topic id (file:line:field) instead of keeping one text.", bool,
            False)),
    RetrieverOption("indexes", help="Retrievers to score; the first is the baseline of the paired tests and, with "
                    "--rerank-depth, the first stage.", rerank="rerank_depth")))
