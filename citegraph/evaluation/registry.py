"""Every benchmark by name, complete from a bare import: ``registry.build("local", …)`` works in
a fresh interpreter, whoever imported what before.

:data:`CATALOGUE` names each benchmark's entry (:class:`~.options.Registered`) as a
``"module:attribute"`` target — the way ir_datasets and ir_measures name theirs — imported
when the benchmark is first asked for: listing the benchmarks imports their light entry
modules only, building one imports its benchmark. ``citegraph evaluate <name>`` is
generated from :func:`registered`, so adding a benchmark means a line here and an entry
beside the benchmark.

The catalogue names modules of higher floors (local recommendation, contextualisation, the
recommender) as text: it imports them only when asked, never while a lower floor is being
imported, and none of them imports this module (they import :mod:`.options`), so no import
loop runs through it (tests/test_layering.py).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..errors import CitegraphError
from ..options import Option
from .entry import Registered

if TYPE_CHECKING:
    from ..graph import GraphStore
    from .harness import Benchmark

CATALOGUE: dict[str, str] = {
    "large-scale": "citegraph.evaluation.large_scale:LARGE_SCALE",
    "mdcr": "citegraph.evaluation.mdcr:MDCR_BENCHMARK",
    "csfcube": "citegraph.evaluation.csfcube:CSFCUBE",
    "contextualise": "citegraph.contextualise.benchmark:CONTEXTUALISE",
    "local": "citegraph.local.benchmark:LOCAL",
    "recommend": "citegraph.recommend.benchmark:RECOMMEND",
    "cite": "citegraph.recommend.draft_benchmark:CITE",
    "trec": "citegraph.evaluation.trec:TREC",
}


def load(target: str) -> Any:
    """The attribute a ``"module:attribute"`` target names, its module imported."""
    module, _, attribute = target.partition(":")
    return getattr(import_module(module), attribute)


def get(name: str) -> Registered:
    if name not in CATALOGUE:
        raise CitegraphError(f"unknown benchmark {name!r}; choose from {', '.join(CATALOGUE)}")
    entry = load(CATALOGUE[name])
    if not isinstance(entry, Registered) or entry.name != name:
        raise CitegraphError(f"{CATALOGUE[name]} is not the entry of the benchmark {name!r}")
    return entry


def registered() -> dict[str, Registered]:
    """Every benchmark's entry by name, in the catalogue's order."""
    return {name: get(name) for name in CATALOGUE}


def build(name: str, *, store: GraphStore | None = None, **options: Any) -> Benchmark:
    """A benchmark built by name from its options (defaults for those not given)."""
    entry = get(name)
    unknown = sorted(set(options) - {o.name for o in entry.options})
    if unknown:
        raise CitegraphError(
            f"benchmark {name!r} takes no option {', '.join(unknown)}; it takes "
            f"{', '.join(o.name for o in entry.options)}"
        )
    if entry.graph and store is None:
        raise CitegraphError(f"benchmark {name!r} reads the graph: pass store=")
    values = {o.name: default(o) for o in entry.options} | options
    return entry.build(**values, **({"store": store} if entry.graph else {}))


def default(option: Option) -> Any:
    """An option's default as its builder takes it (retriever specs parsed, as the CLI parses them)."""
    if option.type in ("spec", "specs") and isinstance(option.default, str):
        from ..retrieval.spec import parse_specs

        specs = parse_specs(option.default) if option.default else []
        return specs[0] if option.type == "spec" else specs
    return option.default
