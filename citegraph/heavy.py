"""The one seam through which citegraph imports its heavy libraries: on first use.

torch, transformers, Faiss and pyserini take seconds to import (pyserini starts a JVM),
and they come with optional extras; a command that does not touch them must not pay for
them, nor fail without them. A module names them at its top::

    from ..heavy import torch

and the name is a :class:`Lazy` stand-in that imports the library on the first attribute
read. A library that is not installed raises a :class:`~citegraph.errors.CitegraphError`
naming the extra that installs it, instead of an ImportError deep inside a command.
Modules of citegraph's own that need such a library at their top (torch ``nn.Module``
classes must subclass ``nn.Module`` when defined) are reached through :func:`lazy` too.
"""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import CitegraphError

#: The pip extra of citegraph that installs each heavy library.
EXTRAS = {
    "torch": "dense",
    "transformers": "dense",
    "safetensors": "dense",
    "faiss": "dense",
    "pyserini": "lucene",
    "sklearn": "train",
}


class Lazy:
    """A module imported on the first read of one of its attributes."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def load(self) -> ModuleType:
        if self._module is None:
            _passive_openmp()
            try:
                self._module = import_module(self._name)
            except ModuleNotFoundError as exc:
                top = exc.name.split(".")[0] if exc.name else self._name
                if top not in EXTRAS:
                    raise
                raise CitegraphError(
                    f"this needs {top}, which is not installed: pip install 'citegraph[{EXTRAS[top]}]'"
                ) from exc
        return self._module

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.load(), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}{' (loaded)' if self._module else ''}>"


def _passive_openmp() -> None:
    """OpenMP threads that sleep at a barrier instead of spinning, unless the user chose.

    libgomp (torch's OpenMP) spins 300,000 times at every barrier by default: on cores shared with
    other processes the spinning thread holds the core its partner waits for, and a small model's
    forward (hundreds of short parallel regions a batch) ran several times slower on two threads
    than on one (benchmarks/rerank.py). A runtime reads this once, as it loads: before the library.
    """
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def lazy(name: str) -> Lazy:
    return Lazy(name)


if TYPE_CHECKING:  # the type checker sees the modules that the stand-ins become
    import faiss
    import safetensors
    import torch
    import transformers
else:
    torch = lazy("torch")
    transformers = lazy("transformers")
    faiss = lazy("faiss")
    safetensors = lazy("safetensors")
