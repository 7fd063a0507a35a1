"""The recommender: which papers should this paper (or this library) cite, and why.

:mod:`.recommender` gathers candidates from the text retrievers, the graph's citing
sentences (:mod:`.contexts`) and the graph around the seed, and scores them with
:class:`Weights`; :mod:`.held_out` learns the weights on held-out citations of the graph
and measures them, :mod:`.benchmark` is that measurement as a registered benchmark, and
:mod:`.demo` is the main job on bundled data (``citegraph demo``).
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .recommender import (
        DEFAULT_WEIGHTS,
        GRAPH_FEATURES,
        Asked,
        Recommendation,
        Recommender,
        Seed,
        Signal,
        load_weights,
        recommendation_dict,
    )

__all__ = ["DEFAULT_WEIGHTS", "GRAPH_FEATURES", "Asked", "Recommendation", "Recommender", "Seed", "Signal",
           "load_weights", "recommendation_dict"]


def __getattr__(name: str):
    """The public names, imported on first use: the benchmark registry and ``citegraph --help``
    reach this package without the graph driver the recommender needs."""
    if name in __all__:
        return getattr(import_module(".recommender", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
