"""citegraph: graph-database-centred scientific citation recommendation and its benchmarks.

``from citegraph import Recommender`` is the entry point for notebooks (imported on first
use, so that ``import citegraph`` stays cheap).
"""

__version__ = "0.1.0"
__all__ = ["Recommender", "__version__"]


def __getattr__(name: str):
    if name == "Recommender":
        from .recommend import Recommender

        return Recommender
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
