"""The graph schema (constraints and indexes), whole-graph statistics and maintenance."""

from __future__ import annotations

from .store import GraphStore


def apply_schema(store: GraphStore) -> None:
    """Create the constraints and indexes of ``cypher/schema.cypher``; idempotent."""
    store.apply("schema")


def clear_graph(store: GraphStore, batch: int = 10_000) -> int:
    """Delete every node and relationship, in batches; returns the nodes deleted."""
    total = 0
    while deleted := store.value("admin/delete_some", limit=batch):
        total += deleted
    return total


def graph_stats(store: GraphStore) -> dict[str, list[dict]]:
    """Counts per label and relationship type, the citation degree summary, the dated
    snapshot partitions ingested and the OpenAlex topic tree's nodes per level."""
    return {
        name: store.run(f"stats/{name}")
        for name in ("labels", "relationships", "citation_degrees", "partitions", "topics")
    }
