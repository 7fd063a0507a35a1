"""Readers per source format → typed records → batched, resumable graph writes."""

from .formats import FORMATS, Format, get
from .pipeline import IngestOptions, IngestSummary, Prefilter, ingest, prefilter

__all__ = ["FORMATS", "Format", "IngestOptions", "IngestSummary", "Prefilter", "get", "ingest", "prefilter"]
