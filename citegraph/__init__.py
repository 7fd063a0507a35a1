"""citegraph: graph-database-centred scientific citation recommendation and its benchmarks."""

__version__ = "0.1.0"
