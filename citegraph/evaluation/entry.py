"""What a benchmark declares to be run by name: its options (:mod:`citegraph.options`), how
its retrievers are named, and the entry (:class:`Registered`) that :mod:`.registry` lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..options import Option

if TYPE_CHECKING:
    from .harness import Benchmark


@dataclass(frozen=True)
class RetrieverOption:
    """How a benchmark's retrievers are named on the command line and where they come from:
    ``indexes`` opens indexes built over the graph, ``documents`` indexes the benchmark's own
    documents (:class:`~.harness.WithDocuments`) under ``<out>/indexes``."""

    source: Literal["indexes", "documents"]
    flag: str = "--with"
    default: str = "bm25"
    help: str = "Retrievers."  # the CLI adds the grammar
    run_files: bool = True  # --run: TREC run files of other tools, scored like the retrievers
    # the option that, when given, makes every retriever after the first a re-ranker of the
    # first's candidates (opened by :func:`citegraph.retrieval.dense.pool_encoder.open_for_rerank`)
    rerank: str = ""


@dataclass(frozen=True)
class Registered:
    """A benchmark by name: its command's help, its options and how to build it from them."""

    name: str
    help: str
    build: Callable[..., Benchmark]  # keyword arguments: the options (and ``store`` when ``graph``)
    options: tuple[Option, ...] = ()
    retrievers: RetrieverOption | None = None
    graph: bool = False  # the builder needs the graph (``store=``)
    # checks the options without the graph, so that a bad value is refused before a database starts
    check: Callable[..., object] | None = None
