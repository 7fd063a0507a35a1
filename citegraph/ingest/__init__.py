"""Readers per source format → typed records → batched, resumable graph writes.

The pipeline (and with it the neo4j driver) is imported on first use, so that listing
the formats — the CLI does at start-up — stays cheap.
"""

from .formats import FORMATS, Format, get

_PIPELINE = ("IngestOptions", "IngestSummary", "Prefilter", "ingest", "prefilter")

__all__ = ["FORMATS", "Format", "get", *_PIPELINE]


def __getattr__(name: str):
    if name in _PIPELINE:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
