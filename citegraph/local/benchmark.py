"""Local citation recommendation (SymTax) registered as the benchmark ``local``. Its options are
the fields of :class:`~.config.LocalConfig` and of the configurations nested in it, declared
there once (:mod:`citegraph.options`). Light to import (the CLI lists it): the
configuration's modules import no torch until a reranker is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..evaluation.entry import Registered
from ..evaluation.harness import Benchmark
from ..options import from_options, options_of
from .config import LocalConfig

if TYPE_CHECKING:
    from ..graph import GraphStore


def configure(**options: Any) -> LocalConfig:
    """The run's configuration from the command's options; refuses a bad value without the graph."""
    return from_options(LocalConfig, options)


def build(store: GraphStore, **options: Any) -> Benchmark:
    """The benchmark from the command's options (``lm_mode`` None: chosen by the device)."""
    from .experiment import LocalRecommendation

    return LocalRecommendation(store, configure(**options))


LOCAL = Registered(
    "local",
    "SymTax's Tables 3 and 4: prefetch → enrichment → taxonomy-aware reranker, and its ablations, "
    "trained on older citing papers and tested on newer ones, the test citations hidden from the graph.",
    build,
    options_of(LocalConfig),
    graph=True,
    check=configure,
)
