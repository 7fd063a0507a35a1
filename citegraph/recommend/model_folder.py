"""A ``cite --model`` folder (``serve --cite-model``, the MCP server's) checked before anything
is loaded from it.

Loading a model imports torch and transformers and reads its weights, seconds of work that a
bad card used to follow, to end in a traceback. Every file citegraph or transformers reads
as JSON is read here first, as UTF-8 JSON of the type it must be, and the fields citegraph
uses are checked by type and range; the weights must be safetensors whose header covers the
file (read without loading a tensor). A pickle (``pytorch_model.bin``) is refused, never
unpickled: unpickling can run code. Each failure is one line naming the file and the field.

The card (``citegraph.json``) may carry ``cite.fusion``, the weights of the draft's field and
of the model's cosine that ``citegraph cite tune`` tuned: finite numbers, at least 0,
of those two names only (a NaN weight made every score NaN and the JSON output invalid).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..heavy import safetensors
from ..retrieval.dense.model_card import CARD

FUSION_KEY = "cite"  # the model card's entry for cite's fusion weights and how they were tuned
FUSION_WEIGHTS = ("draft", "model")
SAFETENSORS = "model.safetensors"
SHARDS = "model.safetensors.index.json"
PICKLES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
#: The JSON files of a sentence-transformers folder that citegraph or transformers read, and
#: the JSON type of each (the card apart: :meth:`ModelFolder.check`).
JSON_FILES: dict[str, type] = {
    "config.json": dict,
    "tokenizer_config.json": dict,
    "special_tokens_map.json": dict,
    "modules.json": list,
    "1_Pooling/config.json": dict,
    "sentence_bert_config.json": dict,
    "config_sentence_transformers.json": dict,
    SHARDS: dict,
}
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number"}


def _kind(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


class ModelFolder:
    """The checked JSON of one model folder; :meth:`check` raises :class:`UsageError` on the
    first problem, naming the file and the field."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.json: dict[str, Any] = {}
        self.card = ""  # the card's file name, once checked

    def bad(self, name: str, problem: str) -> UsageError:
        return UsageError(f"--model {self.folder}: {name}: {problem}")

    def field(self, name: str, path: str, value: Any, expected: str) -> UsageError:
        return self.bad(name, f"field '{path}' must be {expected}, not {_kind(value)} ({json.dumps(value)[:40]})")

    def read(self, name: str, kind: type) -> Any:
        """``name`` as JSON of ``kind``, or None when the folder has no such file."""
        path = self.folder / name
        try:
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            raise self.bad(name, f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
        except OSError as exc:
            raise self.bad(name, f"cannot be read ({exc.strerror})") from None
        try:
            value = json.loads(text)
        except RecursionError:
            raise self.bad(name, "JSON nested too deeply to read") from None
        except ValueError as exc:
            raise self.bad(name, f"not JSON ({exc})") from None
        if not isinstance(value, kind):
            raise self.bad(name, f"{_kind(value)} where {_JSON_TYPES[kind]} is expected")
        return value

    def check(self) -> dict[str, float]:
        """Check every JSON file, the fields citegraph reads and the weights; returns the
        card's fusion weights (empty when it records none)."""
        self.json = {name: self.read(name, kind) for name, kind in {**JSON_FILES, CARD: dict}.items()}
        self.card = CARD
        self._sentence_transformers()
        self._weights()
        return self._fusion()

    def _sentence_transformers(self) -> None:
        for i, module in enumerate(self.json["modules.json"] or []):
            if not isinstance(module, dict) or not isinstance(module.get("type", ""), str):
                raise self.field("modules.json", f"[{i}]", module, "an object whose 'type' is a string")
        length = (self.json["sentence_bert_config.json"] or {}).get("max_seq_length")
        if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 1):
            raise self.field("sentence_bert_config.json", "max_seq_length", length, "a positive integer")
        mode = (self.json["1_Pooling/config.json"] or {}).get("pooling_mode")
        if mode is not None and not isinstance(mode, str):
            raise self.field("1_Pooling/config.json", "pooling_mode", mode, "a string")

    def _weights(self) -> None:
        shards = self.json[SHARDS]
        if shards is not None:
            files = shards.get("weight_map")
            if not isinstance(files, dict) or not all(isinstance(f, str) and "/" not in f for f in files.values()):
                raise self.field(SHARDS, "weight_map", files, "an object of file names in the folder")
            names = sorted(set(files.values()))
        elif (self.folder / SAFETENSORS).is_file():
            names = [SAFETENSORS]
        else:
            pickled = next(name for name in PICKLES if (self.folder / name).is_file())  # missing_model_files saw one
            raise self.bad(
                pickled,
                f"a pickle, which citegraph never loads (unpickling can run code): save the model as {SAFETENSORS} "
                "(save_pretrained(..., safe_serialization=True))",
            )
        for name in names:
            try:
                with safetensors.safe_open(self.folder / name, framework="numpy") as weights:
                    weights.keys()
            except (OSError, safetensors.SafetensorError) as exc:
                raise self.bad(name, f"not a whole safetensors file ({exc})") from None

    def _fusion(self) -> dict[str, float]:
        card = self.json[self.card] or {}
        if FUSION_KEY not in card:
            return {}
        entry = card[FUSION_KEY]
        if not isinstance(entry, dict):
            raise self.field(self.card, FUSION_KEY, entry, "an object")
        if "fusion" not in entry:
            return {}
        fusion = entry["fusion"]
        if not isinstance(fusion, dict):
            raise self.field(self.card, f"{FUSION_KEY}.fusion", fusion, "an object")
        for name, value in fusion.items():
            where = f"{FUSION_KEY}.fusion.{name}"
            if name not in FUSION_WEIGHTS:
                raise self.bad(
                    self.card, f"field '{where}': cite has no such weight (it has {', '.join(FUSION_WEIGHTS)})"
                )
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise self.field(self.card, where, value, "a finite number, at least 0")
        return {name: float(value) for name, value in fusion.items()}


def fusion_weights(folder: Path) -> dict[str, float]:
    """The fusion weights a model folder's card records (empty: none), the folder checked."""
    return ModelFolder(folder).check()
