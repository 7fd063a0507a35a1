"""How MDCR is drawn from the graph (:mod:`.build`): one frozen value, light to import (the CLI
makes ``citegraph mdcr build``'s flags of its fields without importing the graph driver)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...options import option
from ...vocabulary import MAG_FIELDS


@dataclass(frozen=True)
class MDCRConfig:
    """What MDCR is drawn with (see :mod:`.build`); the fields with an option are the flags
    of ``citegraph mdcr build``, declared here once."""

    n_queries: int = field(default=200, metadata=option("--queries", "Queries per field."))
    fields: tuple[str, ...] = field(
        default=MAG_FIELDS,
        metadata=option(
            "--fields",
            "Comma-separated MAG fields (default: all 19).",
            cli_default=None,
            convert=lambda names: tuple(names or MAG_FIELDS),
        ),
    )
    positives: int = 5
    per_type: int = 10
    keep_models: int = 3
    model_depth: int = 200
    pool_size: int = field(default=100_000, metadata=option("--pool-size", "Field-level pool the models rank."))
    most_cited: int = 200
    seed: int = field(default=0, metadata=option("--seed", ""))
    year: int | None = field(
        default=None, metadata=option("--year", "Query year (default: the latest year with enough queries).")
    )
    split: str = field(
        default="test",
        metadata=option(
            "--split", "test or val: names the files (mdcr_<split>.json …); the splits of one seed share no query."
        ),
    )
