"""Benchmarks built from the graph (large-scale pools, MDCR) and the harness that scores
retrievers on them."""
