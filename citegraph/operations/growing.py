"""Growing the graph from a library or ids with OpenAlex and Semantic Scholar (``citegraph
grow``): the request, the answer and the function (:mod:`citegraph.grow` does the work).

The network is asked first — every answer kept in the data folder's cache — and the graph
opened only once everything is fetched, so an API that fails leaves the graph as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..config import Config
from ..errors import UsageError
from ..grow import crawl, openalex_api, s2_api
from ..grow.remote import Remote
from ..grow.resolve import Resolver
from ..library.entries import LibraryEntry, entry_from_id
from .exploring import LibraryText
from .fields import MAX_IDS

if TYPE_CHECKING:  # the driver loads with the first store
    from ..graph import GraphStore
    from ..ingest.pipeline import Progress

MAX_WORKS = 100_000


class GrowRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        [],
        max_length=MAX_IDS,
        description="Seeds given as ids: DOIs, arXiv ids, OpenAlex W… ids, Semantic Scholar or ACL Anthology ids",
    )
    hops: Annotated[int, Field(ge=1, le=2)] = Field(1, description="How far from the seeds: 1 or 2 citation steps")
    cited_by: bool = Field(False, description="Also the works citing each work added, most cited first")
    contexts: bool = Field(
        False, description="Also Semantic Scholar's citing sentences and intents on those citations (with --cited-by)"
    )
    max_works: Annotated[int, Field(ge=1, le=MAX_WORKS)] = Field(
        500, description="Works added at most, seeds included: the most cited, then the newest, first"
    )
    offline: bool = Field(False, description="Ask nothing of the network: every answer from the cache")
    concurrency: Annotated[int, Field(ge=1, le=8)] = Field(
        4, description="Requests in flight at once (each API's documented rate still holds)"
    )


class GrowLibrary(LibraryText, GrowRequest):
    """The explorer's request (``POST /explore/grow``): a library pasted or uploaded as
    ``POST /explore/library`` takes it, and how to grow the graph from it."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Seed(BaseModel):
    entry: str = Field(description="Where the seed was given: the library entry, or the id")
    work: str | None = Field(description="The OpenAlex work it resolved to; null: none")
    how: str = Field(description="How it was found, or why not")


class GrowAnswer(BaseModel):
    seeds: list[Seed]
    works: int = Field(description="Works fetched and written, seeds included")
    references: int = Field(description="Of them, added as references")
    citing: int = Field(description="Of them, added as citing works")
    contexts: int = Field(description="Citations given Semantic Scholar's citing sentences")
    contexts_left: dict[str, int] = Field(description="Citations with sentences left out, by why")
    requests: dict[str, int] = Field(description="Requests that reached each API (retries included)")
    cached: int = Field(description="Answers read from the cache instead")
    nodes_created: int
    relationships_created: int
    seconds: float


def grow(
    request: GrowRequest,
    library: list[LibraryEntry],
    config: Config,
    open_graph: Callable[[], AbstractContextManager[GraphStore]],
    progress: Progress,
) -> GrowAnswer:
    """Resolve the seeds (``library`` entries and ``request.ids``), fetch what they lead to, and
    write it through the ingest: the graph is opened (``open_graph``) once all is fetched. The
    database's ingest lock is held throughout: one grow or ingest at a time."""
    from ..ingest.lock import ingest_lock

    started = time.perf_counter()
    entries = [*library, *(entry_from_id(i) for i in request.ids)]
    if not entries:
        raise UsageError("give the seeds: a library file (--from) or ids")
    if request.contexts and not request.cited_by:
        raise UsageError("--contexts puts citing sentences on the citations of the citing works: give --cited-by too")
    with ingest_lock(config):
        return _grow(request, entries, config, open_graph, progress, started)


def grow_library(request: GrowLibrary, config: Config, store: GraphStore) -> GrowAnswer:
    """The explorer's growing: the library's text read by the library's own parsers (no file of
    the server is read), the graph the service's ``store``."""
    from contextlib import nullcontext
    from pathlib import Path

    from ..ingest.pipeline import NoProgress
    from ..library.entries import parse_library

    library = parse_library(request.text, Path(request.name).name)
    return grow(request, library, config, lambda: nullcontext(store), NoProgress())


def _grow(
    request: GrowRequest,
    entries: list[LibraryEntry],
    config: Config,
    open_graph: Callable[[], AbstractContextManager[GraphStore]],
    progress: Progress,
    started: float,
) -> GrowAnswer:
    cache = config.data_folder("cache", "grow")
    remotes = [
        Remote(
            openalex_api.api(config.openalex_url, config.openalex_mailto, config.openalex_key),
            cache,
            offline=request.offline,
            on_request=lambda: progress.advance(1),
        ),
        Remote(
            s2_api.api(config.s2_url, config.s2_key),
            cache,
            offline=request.offline,
            on_request=lambda: progress.advance(1),
        ),
    ]
    openalex, s2 = openalex_api.OpenAlex(remotes[0]), s2_api.SemanticScholar(remotes[1])
    progress.start("requests", None)
    try:
        resolver = Resolver(openalex, s2)
        resolved = [resolver.resolve(entry) for entry in entries]
        options = crawl.GrowOptions(
            request.hops, request.cited_by, request.contexts, request.max_works, request.concurrency
        )
        found = crawl.gather([r.work for r in resolved if r.work], openalex, s2, options)
    finally:
        progress.finish()
        for remote in remotes:
            remote.close()
    summaries = []
    if found.works:
        files = crawl.stage(found, config.data_folder("grow"))
        with open_graph() as store:
            summaries = crawl.write(store, files, progress)
    return GrowAnswer(
        seeds=[Seed(entry=r.entry.where, work=r.work_id, how=r.how) for r in resolved],
        works=len(found.works),
        references=found.references,
        citing=found.citing,
        contexts=len(found.contexts),
        contexts_left={why: n for why, n in found.contexts_left.items() if n},
        requests={r.api.name: r.requests for r in remotes},
        cached=sum(r.hits for r in remotes),
        nodes_created=sum(s.write.nodes_created for s in summaries),
        relationships_created=sum(s.write.relationships_created for s in summaries),
        seconds=round(time.perf_counter() - started, 2),
    )
