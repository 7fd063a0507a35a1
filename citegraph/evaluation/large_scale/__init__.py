"""Large-scale candidate pools (Medić & Šnajder 2022, §3): :mod:`.pools` draws them from the
graph, :mod:`.score` ranks and scores retrievers in them (Tables 1 and 2) and tunes BM25.

Registered as the benchmark ``large-scale``; light to import (the CLI lists it): the
builder imports the scoring when called.
"""

from __future__ import annotations

from pathlib import Path

from ...options import Option
from ..entry import Registered, RetrieverOption


def _build(pools_dir: Path):
    from .score import LargeScale

    return LargeScale(Path(pools_dir))


LARGE_SCALE = Registered(
    "large-scale",
    "Tables 1 and 2 of Medić & Šnajder: MAP / nDCG / R@30 per pool size or per field.",
    _build,
    (
        Option(
            "pools_dir",
            "--pools",
            "A folder written by `citegraph pools dataset-level|field-level`.",
            Path,
            required=True,
            path="dir",
        ),
    ),
    RetrieverOption("indexes", help="Retrievers with built indexes (citegraph index …)."),
)
