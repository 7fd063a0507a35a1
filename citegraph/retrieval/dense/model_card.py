"""A saved model's card for programs: ``citegraph.json`` beside the weights of a
sentence-transformers folder (the graph, the split, the training settings, the machine, the
test figures; ``cite``'s tuned fusion weights). Here, below both sides, because local
recommendation writes it when it saves a model (:mod:`citegraph.local.saved`) and the product
reads it when it loads one (:mod:`citegraph.recommend.model_folder`, ``cite --model``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import CitegraphError

CARD = "citegraph.json"


def read_card(folder: Path) -> dict[str, Any]:
    """A saved model's card; a folder without one, or a card that is not a JSON object, is
    refused in one line naming the file."""
    path = Path(folder) / CARD
    if not path.is_file():
        raise CitegraphError(f"{folder}: no {CARD} (not a model folder citegraph wrote)")
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CitegraphError(f"{path}: not JSON ({exc})") from None
    if not isinstance(card, dict):
        raise CitegraphError(f"{path}: not a JSON object")
    return card


def record_card(folder: Path, key: str, value: Any) -> None:
    """One more entry of a saved model's card (e.g. ``cite``'s tuned fusion weights), written
    whole to a sibling file and moved over it."""
    path = Path(folder) / CARD
    card = read_card(folder)
    card[key] = value
    partial = path.with_name(f".{CARD}.partial")
    partial.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    partial.replace(path)
