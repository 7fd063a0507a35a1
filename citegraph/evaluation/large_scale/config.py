"""How pools are drawn at either level (:mod:`.pools`): one frozen value, light to import (the
CLI makes the flags both ``citegraph pools`` commands share of its fields)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...options import option
from ..sampling import SPLITS


def _ids_in(path: Path | None) -> frozenset[str]:
    """The paper ids of a file, one a line (none without a file)."""
    return frozenset(Path(path).read_text(encoding="utf-8").split()) if path else frozenset()


@dataclass(frozen=True)
class PoolsConfig:
    """What the queries and pools of either level are drawn with; the fields with an option are
    the flags of ``citegraph pools dataset-level`` and ``field-level``, declared here once."""

    seed: int = field(default=0, metadata=option("--seed", ""))
    year: int | None = field(
        default=None, metadata=option("--year", "Query year (default: the latest year with enough queries).")
    )
    exclude: frozenset[str] = field(
        default=frozenset(),
        metadata=option(
            "--exclude",
            "Paper ids (one a line) never used, e.g. an encoder's training set.",
            type=Path,
            path="file",
            cli_default=None,
            convert=_ids_in,
        ),
    )
    repeats: int = field(default=3, metadata=option("--repeats", "Pools drawn anew per size (or field)."))
    split: str = field(
        default="test",
        metadata=option(
            "--split", "val: queries for tuning, disjoint from the test queries of the same seed.", type=SPLITS
        ),
    )
