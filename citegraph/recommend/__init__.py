"""The recommender: which papers should this paper (or this library) cite, and why.

:mod:`.recommender` gathers candidates from the text retrievers, the graph's citing
sentences (:mod:`citegraph.recommend.signals.contexts`) and the graph around the seed, and scores them with
:class:`Weights`; :mod:`.held_out` learns the weights on held-out citations of the graph
and measures them, :mod:`.benchmark` is that measurement as a registered benchmark, and
:mod:`.demo` is the main job on bundled data (``citegraph demo``).
"""

from importlib import import_module
from typing import TYPE_CHECKING

_PUBLIC = {
    "Recommender": "recommender",
    "Seed": "seed",
    "View": "seed",
    "Asked": "seed",
    "Candidate": "candidates",
    "Candidates": "candidates",
    "Facts": "candidates",
    "Signal": "candidates",
    "Recommendation": "candidates",
    "Weights": "weights",
    "DEFAULT_WEIGHTS": "weights",
    "GRAPH_FEATURES": "weights",
}

if TYPE_CHECKING:
    from .candidates import Candidate, Candidates, Facts, Recommendation, Signal
    from .recommender import Recommender
    from .seed import Asked, Seed, View
    from .weights import DEFAULT_WEIGHTS, GRAPH_FEATURES, Weights

__all__ = [
    "DEFAULT_WEIGHTS",
    "GRAPH_FEATURES",
    "Asked",
    "Candidate",
    "Candidates",
    "Facts",
    "Recommendation",
    "Recommender",
    "Seed",
    "Signal",
    "View",
    "Weights",
]


if not TYPE_CHECKING:  # type checkers see the imports above, and so flag a name that is not public

    def __getattr__(name: str):
        """The public names, imported on first use: the benchmark registry and ``citegraph --help``
        reach this package without the graph driver the recommender needs."""
        if name in _PUBLIC:
            return getattr(import_module(f".{_PUBLIC[name]}", __name__), name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
