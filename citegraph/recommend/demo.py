"""The main job on bundled data, with no setup: what `citegraph demo` runs.

Ingests the taxonomies and the ACL-200 citation graph shipped inside the package into
whatever graph the store speaks to (the embedded ArcadeDB by default), asks the graph
what a user asks first (its size, its most cited papers, what is co-cited with the most
cited one), then runs the benchmark pipeline on held-out citations: an MDCR-style pool
set built by Cypher (5 cited papers and graph, most-cited and random negatives per
query), scored with BM25 on the titles and with a graph scorer (co-citation with the
query's other references), as MDCR tables. It ends where a user starts: the corpus is
indexed with BM25 where `citegraph index bm25` puts it (so `citegraph serve` finds it)
and the recommender answers for one ACL paper, with its explanations; then ``cite`` answers
for a real paragraph of an ACL paper (``data/demo/paragraph.tex``, from ScisummNet) whose
citation of McDonald et al. (2005) is held out, its other references in ``paragraph.bib``,
as of the year before the paper's (its own citations are in the graph: no evidence then).

ACL-200 has titles but almost no abstracts, so the demo's prefilter asks for a title, a
year and one citation instead of the MDCR paper's 30-character abstract and 3 citations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..evaluation.harness import run as run_benchmark
from ..evaluation.large_scale.pools import ALL_FIELDS
from ..evaluation.mdcr.build import build as build_mdcr
from ..evaluation.mdcr.config import MDCRConfig
from ..evaluation.mdcr.score import MDCR
from ..evaluation.report import Table
from ..graph import GraphStore
from ..graph.schema import graph_stats
from ..ingest import IngestOptions, IngestSummary, Prefilter, get, ingest, prefilter
from ..ingest.pipeline import NoProgress, Progress
from ..ingest.sources.taxonomy import BUNDLED as TAXONOMY
from ..library.draft import read_draft
from ..retrieval.corpus import documents
from ..retrieval.signals import CoCitationScorer
from ..retrieval.spec import BM25
from .cite import Cited, cite
from .recommender import Recommendation, Recommender, Seed

ACL200 = Path(str(resources.files("citegraph") / "data" / "acl200"))
TITLES_ONLY = Prefilter(min_abstract=0, min_citations=1)
DEMO_PAPER = "P12-1066"  # Selective Sharing for Multilingual Dependency Parsing (ACL 2012), 7 references
PARAGRAPH = Path(str(resources.files("citegraph") / "data" / "demo" / "paragraph.tex"))  # see ATTRIBUTION.md
HELD_OUT = "P05-1012"  # McDonald et al. (2005), the paragraph's \cite{?}
PARAGRAPH_AS_OF = 2010  # the paragraph's paper (D11-1006) is of 2011
DEMO_K = 5  # recommendations and suggestions shown


@dataclass(frozen=True)
class HeldOut:
    """``cite`` on the demo's paragraph, and where the held-out paper came."""

    cited: Cited
    paper: str = HELD_OUT
    as_of: int = PARAGRAPH_AS_OF

    @property
    def rank(self) -> int | None:
        """The held-out paper's 1-based rank at the paragraph's one slot (None: not suggested)."""
        [slot] = self.cited.slots
        return next((i for i, s in enumerate(slot.suggestions, start=1) if s.id == self.paper), None)


def cite_paragraph(recommender: Recommender, k: int = DEMO_K) -> HeldOut:
    """The demo's paragraph asked of ``cite`` (its bibliography beside it)."""
    draft = read_draft(PARAGRAPH, bib=PARAGRAPH.with_suffix(".bib"))
    return HeldOut(cite(recommender, draft, k=k, as_of=PARAGRAPH_AS_OF))


@dataclass(frozen=True)
class Ingested:
    summary: IngestSummary


@dataclass(frozen=True)
class GraphAsked:
    """What a user asks a graph first: its size, its most cited papers, what is co-cited with the first."""

    stats: dict[str, list[dict]]
    most_cited: list[dict]
    top_id: str | None
    co_cited: list[dict]


@dataclass(frozen=True)
class Benchmarked:
    eligibility: dict[str, int]
    tables: list[Table]
    output: Path


@dataclass(frozen=True)
class Recommended:
    seed: Seed
    recommendations: list[Recommendation]


#: The demo's steps, each yielded as soon as it is done (the command prints it at once).
Step = Ingested | GraphAsked | Benchmarked | Recommended | HeldOut


def run(
    store: GraphStore,
    work: Path,
    indexes: Path,
    progress: Callable[[], Progress] = NoProgress,
    top: int = 10,
    queries: int = 100,
) -> Iterator[Step]:
    for name, path in (("taxonomy", TAXONOMY), ("acl200", ACL200)):
        yield Ingested(ingest(store, get(name), [path], IngestOptions(), progress()))
    most_cited = store.run("most_cited", limit=top)
    top_id = most_cited[0]["id"] if most_cited else None
    co_cited = store.run("co_cited", id=top_id, limit=top) if top_id else []
    yield GraphAsked(graph_stats(store), most_cited, top_id, co_cited)

    eligibility = prefilter(store, TITLES_ONLY)
    build_mdcr(store, work / "mdcr", MDCRConfig(n_queries=queries, fields=(ALL_FIELDS,), seed=0))
    benchmark = MDCR(work / "mdcr")
    scorers = [BM25().build(benchmark.documents(), work / "indexes"), CoCitationScorer(store)]
    yield Benchmarked(eligibility, run_benchmark(benchmark, scorers, work / "evaluation").tables, work)

    bm25 = BM25().build(documents(store), indexes)
    with Recommender(store, [bm25]) as recommender:
        seed = recommender.seed(DEMO_PAPER)
        yield Recommended(seed, recommender.recommend_for(seed, k=DEMO_K))
        yield cite_paragraph(recommender)
