"""MDCR (Medić & Šnajder 2022): :mod:`.build` draws the benchmark from the graph in the official
release's format, :mod:`.score` scores retrievers on such a folder (Tables 3 and 4).

Registered as the benchmark ``mdcr``; light to import (the CLI lists it): the builder
imports the scoring when called.
"""

from __future__ import annotations

from pathlib import Path

from ...options import Option
from ..entry import Registered, RetrieverOption


def _build(directory: Path, split: str, official_release: bool):
    from .score import MDCR

    return MDCR(Path(directory), split, official_release)


MDCR_BENCHMARK = Registered(
    "mdcr",
    "Tables 3 and 4 of Medić & Šnajder: per field MAP / nDCG / R@5, and per candidate type.",
    _build,
    (
        Option(
            "directory",
            "--benchmark",
            "A folder with mdcr_<split>.json and mdcr_<split>_data.jsonl (ours or the official release).",
            Path,
            required=True,
            path="dir",
        ),
        Option("split", "--split", "The split to score.", default="test"),
        Option(
            "official_release",
            "--official-release",
            "The folder is the official MDCR release: its test "
            "scores are printed beside the published SciNCL averages, and the files' SHA-256 are recorded in "
            "results.json.",
            bool,
            False,
        ),
    ),
    RetrieverOption("documents", help="Retrievers, indexed over the benchmark's documents (under OUT/indexes)."),
)
