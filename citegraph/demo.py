"""The main job on bundled data, with no setup: what `citegraph demo` runs.

Ingests the taxonomies and the ACL-200 citation graph shipped inside the package into
whatever graph the store speaks to (the embedded ArcadeDB by default), then asks the
graph what a user would ask first: its size, its most cited papers, and what is
co-cited with the most cited one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .graph import GraphStore
from .graph.schema import graph_stats
from .ingest import IngestOptions, IngestSummary, get, ingest
from .ingest.pipeline import NoProgress, Progress
from .ingest.taxonomy import BUNDLED as TAXONOMY

ACL200 = Path(str(resources.files("citegraph") / "data" / "acl200"))


@dataclass
class DemoResult:
    ingests: list[IngestSummary]
    stats: dict[str, list[dict]]
    most_cited: list[dict]
    top_id: str | None
    co_cited: list[dict]


def run(store: GraphStore, progress: Callable[[], Progress] = NoProgress, top: int = 10) -> DemoResult:
    ingests = [ingest(store, get(name), [path], IngestOptions(), progress())
               for name, path in (("taxonomy", TAXONOMY), ("acl200", ACL200))]
    stats = graph_stats(store)
    most_cited = store.run("most_cited", limit=top)
    top_id = most_cited[0]["id"] if most_cited else None
    co_cited = store.run("co_cited", id=top_id, limit=top) if top_id else []
    return DemoResult(ingests, stats, most_cited, top_id, co_cited)
