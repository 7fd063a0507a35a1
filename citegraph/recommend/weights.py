"""How candidates are scored: a weighted sum of their features, ties broken by id.

Default weights, weights the user sets, or weights learned by logistic regression on
held-out citations (:mod:`.held_out`), saved as ``{"weights": {feature: weight}, "seed": …,
"training_papers": […], …}``; learned with several seeds, one such file per seed in a folder
(:func:`seed_file`), each usable alone wherever a weights file is.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from ..errors import CitegraphError
from ..retrieval.base import Ranking, rank
from .candidates import Candidate

GRAPH_FEATURES = ("cited_by_references", "cocitation", "coupling", "citations", "overlap", "enrichment", "contexts")
DEFAULT_WEIGHTS = {
    "cited_by_references": 1.0,
    "cocitation": 0.5,
    "coupling": 0.5,
    "citations": 0.2,
    "overlap": 1.0,
    "enrichment": 0.3,
    "contexts": 1.0,
    "text": 1.0,
    "negative": -1.0,
}
# Weights learned on held-out citations know no negative seeds: theirs push down this much.
_UNLEARNED = {"negative": DEFAULT_WEIGHTS["negative"]}


@dataclass(frozen=True)
class Weights:
    """Feature → weight; ``text`` weighs every retriever's score (``text:<name>``) that has no
    weight of its own, ``bias`` is added to every score."""

    values: Mapping[str, float] = field(default_factory=lambda: MappingProxyType(dict(DEFAULT_WEIGHTS)))
    # feature name → its weight, resolved once per name (a ranking scores every candidate)
    _resolved: dict[str, float] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType({str(k): float(v) for k, v in self.values.items()}))

    def weight(self, name: str) -> float:
        """The weight of feature ``name``: its own, else ``text``'s for a retriever's score,
        else the unlearned default (0 for a feature the weights do not know)."""
        found = self._resolved.get(name)
        if found is None:
            fallback = self.values.get("text", 0.0) if name.startswith("text:") else _UNLEARNED.get(name, 0.0)
            found = self._resolved[name] = self.values.get(name, fallback)
        return found

    def score(self, features: Mapping[str, float]) -> float:
        total = self.values.get("bias", 0.0)
        weight = self.weight
        for name, value in features.items():
            total += weight(name) * value
        return total

    def rank(self, candidates: Mapping[str, Candidate], k: int) -> Ranking:
        """The top ``k`` by score, ties by id (the one tie-break of every recommendation)."""
        return rank({cid: self.score(c.features) for cid, c in candidates.items()}, k)

    @classmethod
    def load(cls, path: Path) -> Weights:
        data = _read(path)
        try:
            return cls(data["weights"])
        except (TypeError, ValueError):
            raise CitegraphError(f"{path}: every weight must be a number") from None

    def save(self, path: Path, about: Mapping[str, object], training_papers: Collection[str] = ()) -> None:
        """The weights and what they were learned on (``about``: papers, seed, retrievers …;
        ``training_papers``: the ids, so that a test on them can be refused)."""
        trained = {TRAINING_PAPERS: sorted(training_papers)} if training_papers else {}
        Path(path).write_text(
            json.dumps({"weights": dict(self.values), **about, **trained}, indent=2) + "\n", encoding="utf-8"
        )


TRAINING_PAPERS = "training_papers"


def seed_file(folder: Path, seed: int) -> Path:
    """The weights learned with ``seed`` in a folder of ``recommend-train --seeds``."""
    return Path(folder) / f"weights.seed{seed}.json"


def weights_for_seed(path: Path, seed: int) -> Path:
    """The weights file to test ``seed`` with: ``path`` itself, or in a folder of
    ``recommend-train --seeds``, that seed's file."""
    if not Path(path).is_dir():
        return Path(path)
    found = seed_file(path, seed)
    if not found.is_file():
        raise CitegraphError(
            f"{path}: no weights for seed {seed} ({found.name}); learn them with recommend-train --seeds … --out {path}"
        )
    return found


def trained_seed(path: Path) -> int | None:
    """The seed whose permutation the weights were learned on (``None``: not recorded)."""
    seed = _read(path).get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise CitegraphError(f"{path}: seed must be an integer")
    return seed


def training_papers(path: Path) -> frozenset[str] | None:
    """The papers a weights file was learned on (``None``: the file does not record them)."""
    ids = _read(path).get(TRAINING_PAPERS)
    if ids is None:
        return None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise CitegraphError(f"{path}: {TRAINING_PAPERS} must be a list of paper ids")
    return frozenset(ids)


def _read(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CitegraphError(f"{path}: cannot read weights: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
        raise CitegraphError(f'{path}: expected {{"weights": {{feature: weight}}}}')
    return data
