"""Where an encoder's model is loaded from: a folder, the Python package that ships it, the
Hugging Face cache, or the hub — in that order (see :mod:`.encoders`), so that a machine
without the hub fails at once with every place named, never with a minute of retries.

Apart from :mod:`.encoders` because finding and identifying model files (folders, the
hub probe, sentence-transformers' declarations, a checkpoint's digest) is a concern of its
own, testable without loading a model.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ...errors import CitegraphError, UsageError
from .encoder_specs import HUB_PREFIX, EncoderSpec, Pooling

MODELS_ENV = "CITEGRAPH_MODELS"
HUB_PROBE_SECONDS = 3.0


@dataclass(frozen=True, slots=True)
class ModelSource:
    """Where a model is loaded from: a directory, or a hub id to download."""

    location: str
    local: bool


def model_dirs() -> list[Path]:
    return [Path(p).expanduser() for p in os.environ.get(MODELS_ENV, "").split(os.pathsep) if p]


WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
#: files only a sentence-transformers folder has: with any of them, modules.json says how to pool
SENTENCE_TRANSFORMERS_FILES = ("sentence_bert_config.json", "config_sentence_transformers.json", "1_Pooling")


def is_model_dir(path: Path) -> bool:
    return (path / "config.json").is_file()


def missing_model_files(path: Path) -> list[str]:
    """What a model folder lacks to be loaded: its config, its weights, and — when it is a
    sentence-transformers folder — the modules.json that names its pooling."""
    missing = [] if is_model_dir(path) else ["config.json"]
    if not any((path / w).is_file() for w in WEIGHTS):
        missing.append(f"weights ({' or '.join(WEIGHTS[::2])})")
    if any((path / f).exists() for f in SENTENCE_TRANSFORMERS_FILES) and not (path / "modules.json").is_file():
        missing.append("modules.json")
    return missing


def hub_offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes", "on"}


def hub_unreachable() -> str | None:
    """Why the hub cannot be reached, or None; answers within a few seconds in any case.

    huggingface_hub retries a failed request five times with back-off (about 50 s per
    file here), so the hub is probed once before any download is attempted.
    """
    from huggingface_hub import constants

    answer: list[str | None] = []

    def probe() -> None:
        try:
            with urllib.request.urlopen(
                urllib.request.Request(constants.ENDPOINT, method="HEAD"), timeout=HUB_PROBE_SECONDS
            ):
                answer.append(None)
        except urllib.error.HTTPError:
            answer.append(None)  # it answered
        except (OSError, ValueError) as exc:
            answer.append(str(getattr(exc, "reason", exc)))

    thread = threading.Thread(target=probe, daemon=True)  # name resolution ignores the timeout
    thread.start()
    thread.join(HUB_PROBE_SECONDS + 1)
    return answer[0] if answer else f"no answer within {HUB_PROBE_SECONDS:.0f} s"


def locate(spec: EncoderSpec) -> ModelSource:
    """The first place that has the model (see the module docstring), or a clear error."""
    looked: list[str] = []
    direct = Path(spec.hub_id).expanduser()
    if spec.name.startswith(HUB_PREFIX) and (direct.is_absolute() or direct.exists() or spec.hub_id.startswith(".")):
        missing = missing_model_files(direct)
        if not missing:
            return ModelSource(str(direct.resolve()), True)
        raise UsageError(f"encoder {spec.name!r}: {direct} is not a model directory (no {', no '.join(missing)})")
    for base in model_dirs():
        for candidate in dict.fromkeys([base / spec.name.removeprefix(HUB_PREFIX), base / spec.hub_id]):
            if is_model_dir(candidate):
                return ModelSource(str(candidate.resolve()), True)
            looked.append(str(candidate))
    if not model_dirs():
        looked.append(f"${MODELS_ENV} (not set)")
    if spec.package:
        found = importlib.util.find_spec(spec.package)
        if found and found.origin and is_model_dir(Path(found.origin).parent / "model"):
            return ModelSource(str(Path(found.origin).parent / "model"), True)
        looked.append(f"the Python package {spec.package} ({'no model/ folder' if found else 'not installed'})")
    from huggingface_hub import constants, try_to_load_from_cache

    cached = try_to_load_from_cache(spec.hub_id, "config.json")
    if isinstance(cached, str):
        return ModelSource(str(Path(cached).parent), True)
    looked.append(f"the Hugging Face cache {constants.HF_HUB_CACHE}")
    why = "HF_HUB_OFFLINE is set" if hub_offline() else hub_unreachable()
    if why is None:
        return ModelSource(spec.hub_id, False)
    raise CitegraphError(
        f"encoder {spec.name!r} ({spec.hub_id}) is not available: no local copy in "
        f"{'; '.join(looked)}, and the hub {constants.ENDPOINT} was not used ({why}). "
        f"Copy the model where the hub is reachable "
        f"(hf download {spec.hub_id} --local-dir DIR/{spec.name.removeprefix(HUB_PREFIX)}) "
        f"and set {MODELS_ENV}=DIR."
    )


def sentence_transformers_config(directory: Path) -> tuple[Pooling | None, bool, int | None]:
    """Pooling, normalisation and length a sentence-transformers folder declares (the pooling
    as versions up to 5 write it, a flag per mode, or as 6 does, ``pooling_mode``; 6 keeps the
    length in the tokenizer's config, which the encoder reads anyway).

    Read here rather than by loading the folder with sentence-transformers, which costs each
    encoding process 1.7 s and 135 MB more (docs/retrieval.md); tests/test_encoders.py checks
    that the encoder then pools, normalises and truncates as the library does. A pooling other
    than CLS or mean (max, weighted mean, last token…) is refused, never replaced by another."""
    pooling: Pooling | None = None
    with contextlib.suppress(OSError, ValueError):
        config = json.loads((directory / "1_Pooling" / "config.json").read_text())
        mode = config.get("pooling_mode")  # 6: a name, or a list of names whose vectors are concatenated
        modes = (
            [mode]
            if isinstance(mode, str)
            else [m for m in mode if isinstance(m, str)]
            if isinstance(mode, list)
            else []
        )
        modes += [
            key.removeprefix("pooling_mode_")
            for key, on in config.items()
            if key.startswith("pooling_mode_") and on is True
        ]
        names = {"cls_token": "cls", "mean_tokens": "mean"}
        declared = list(dict.fromkeys(names.get(m, m) for m in modes))
        if declared and declared not in (["cls"], ["mean"]):
            raise UsageError(
                f"{directory}: 1_Pooling/config.json: pooling '{'+'.join(declared)}' is not one citegraph computes "
                "(cls or mean)"
            )
        pooling = "cls" if declared == ["cls"] else "mean" if declared == ["mean"] else None
    normalize = False
    with contextlib.suppress(OSError, ValueError):
        normalize = any(
            m.get("type", "").endswith("Normalize") for m in json.loads((directory / "modules.json").read_text())
        )
    length = None
    with contextlib.suppress(OSError, ValueError):
        length = json.loads((directory / "sentence_bert_config.json").read_text()).get("max_seq_length")
    return pooling, normalize, length


def model_digest(directory: Path) -> str:
    """A cheap identity of a model folder: its config and the ends of its weight files.

    Retraining changes every weight, so the first and last MiB of each weight file tell
    two checkpoints of one architecture apart without hashing hundreds of MB.
    """
    digest = hashlib.sha256((directory / "config.json").read_bytes())
    for weights in sorted(p for p in directory.iterdir() if p.suffix in {".safetensors", ".bin", ".pt"}):
        size = weights.stat().st_size
        digest.update(f"{weights.name}:{size}".encode())
        with open(weights, "rb") as f:
            digest.update(f.read(1 << 20))
            f.seek(max(size - (1 << 20), 0))
            digest.update(f.read(1 << 20))
    return digest.hexdigest()[:16]
