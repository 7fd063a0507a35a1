"""The fine-tuned bi-encoder kept as a folder any tool loads: ``hf:<folder>`` in every
``--with`` spec, and ``sentence_transformers.SentenceTransformer(folder)``.

The folder has sentence-transformers' layout — the LM's ``config.json``, tokenizer files
and ``model.safetensors`` at the top, ``modules.json`` naming Transformer → Pooling (mean)
→ Normalize, ``1_Pooling/config.json``, ``2_Normalize/`` and ``sentence_bert_config.json``
(``max_seq_length``) — which declares exactly what :class:`.biencoder.BiEncoder` does: one
text per side (a context with its citing paper's title and abstract; a candidate's title
and abstract, joined by a space, never by [SEP]), cut at ``max_length`` tokens, the last
hidden state mean-pooled over the attention mask and normalised, scored by cosine. Beside
the weights, a model card: ``README.md`` for people, ``citegraph.json`` for programs (the
graph, the split, the training settings, the machine, the test figures of the run).

**Why written by hand and not by sentence-transformers**: it is not a run-time dependency
(the ``[dense]`` stack is torch + transformers); the files are small JSON, in the layout
sentence-transformers 2 to 6 all read and that
:func:`citegraph.retrieval.dense.model_location.sentence_transformers_config` reads.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import CitegraphError
from ..evaluation.report import Table
from ..heavy import torch
from ..retrieval.dense.model_card import CARD
from .biencoder import BiEncoder

QUERY_TEXT = "the citation context, then the citing paper's title and abstract, joined by spaces"
DOCUMENT_TEXT = "the paper's title and abstract, joined by a space"
MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
]


def machine() -> dict[str, Any]:
    """Where a model was trained: cores, processor, GPU (None on CPU)."""
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "cores": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
        "gpu": gpu,
        "platform": platform.platform(),
        "torch": torch.__version__,
    }


def model_card(
    model: BiEncoder,
    *,
    graph: dict[str, Any],
    split: dict[str, Any],
    prefetch: str,
    wall_seconds: float,
    test: Table | None,
    licence: str | None,
) -> dict[str, Any]:
    """What ``citegraph.json`` records of a training run (``test``: the run's table, None without one)."""
    c, described = model.config, model.describe()
    return {
        "citegraph_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "base_model": c.lm,
        "pooling": "mean",
        "normalize": True,
        "similarity": "cosine",
        "max_length": model.encoder.max_length,
        "query_text": QUERY_TEXT,
        "document_text": DOCUMENT_TEXT,
        "graph": graph,
        "split": split,
        "licence": licence,
        "training": {
            "steps": model.steps,
            "batch": c.batch_queries,
            "lr": c.lr,
            "warmup": c.warmup,
            "scale": c.scale,
            "negatives": list(c.negatives),
            "prefetch": prefetch,
            "prefetch_top": c.prefetch_top,
            "popular_top": c.popular_top,
            "seed": c.seed,
            "device": described["device"],
            "train_seconds": described["train_seconds"],
            "first_loss": described["first_loss"],
            "final_loss": described["final_loss"],
        },
        "wall_seconds": round(wall_seconds, 1),
        "machine": machine(),
        "test": None
        if test is None
        else {
            "title": test.title,
            "rows": {row: {column: cells[column][0] for column in cells} for row, cells in test.rows.items()},
        },
    }


def save_model(model: BiEncoder, folder: Path, card: dict[str, Any], test: Table | None = None) -> Path:
    """The bi-encoder's LM and its modules in sentence-transformers' layout, with its card.

    Written to a sibling folder and moved into place, so ``folder`` is never half a model; a
    folder that holds anything but an earlier model (no ``citegraph.json``) is left alone.
    """
    folder = Path(folder).expanduser()
    if folder.exists() and (not folder.is_dir() or (any(folder.iterdir()) and not (folder / CARD).is_file())):
        raise CitegraphError(f"--save {folder}: exists and is not a model folder citegraph wrote; name a new folder")
    staging = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    model.encoder.model.save_pretrained(staging, safe_serialization=True)
    model.encoder.tokenizer.save_pretrained(staging)
    for path, content in {
        "modules.json": MODULES,
        "1_Pooling/config.json": {
            "word_embedding_dimension": model.encoder.dim,
            "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
        "sentence_bert_config.json": {"max_seq_length": model.encoder.max_length, "do_lower_case": False},
        "config_sentence_transformers.json": {
            "prompts": {},
            "default_prompt_name": None,
            "similarity_fn_name": "cosine",
        },
        CARD: card,
    }.items():
        (staging / path).parent.mkdir(exist_ok=True)
        (staging / path).write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    (staging / "2_Normalize").mkdir()
    (staging / "README.md").write_text(readme(card, test), encoding="utf-8")
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return folder


def readme(card: dict[str, Any], test: Table | None) -> str:
    """The model card for people: what the model reads, how it was trained, how it scored."""
    t, m = card["training"], card["machine"]
    licence = card["licence"]
    front = [
        "---",
        "library_name: sentence-transformers",
        "pipeline_tag: sentence-similarity",
        "tags: [citegraph, citation-recommendation, sentence-transformers]",
        *([f"license: {licence}"] if licence else []),
        "---",
    ]
    split = card["split"]
    lines = [
        *front,
        "",
        "# A citation-context bi-encoder (citegraph)",
        "",
        f"Fine-tuned from `{card['base_model']}` by `citegraph evaluate local --rerankers biencoder --save` "
        f"(citegraph {card['citegraph_version']}, {card['created']}) to rank the papers a sentence should cite.",
        "",
        "## Use",
        "",
        "- citegraph: `--with hf:<this folder>` (search, index dense, recommend, evaluate trec --rerank-depth), "
        "`evaluate local --encoder <this folder>`;",
        "- sentence-transformers: `SentenceTransformer('<this folder>').encode(texts)`.",
        "",
        f"A query is {QUERY_TEXT}; a document is {DOCUMENT_TEXT}; both are cut at {card['max_length']} tokens, "
        "mean-pooled and normalised, and compared by cosine.",
        "",
        "## Training",
        "",
        f"- graph: {json.dumps(card['graph'])}",
        f"- split: contexts of citing papers up to {split.get('train_until')} train, from "
        f"{split.get('held_out_from')} test; {split.get('train_used')} train and {split.get('test_used')} test "
        "contexts used",
        f"- {t['steps']} steps of {t['batch']} contexts, lr {t['lr']}, hard negatives: "
        f"{', '.join(t['negatives']) or 'in-batch only'} (prefetch {t['prefetch']}), max length {card['max_length']}",
        f"- {t['train_seconds']} s training, {card['wall_seconds']} s the whole run, on {m['cores']} cores "
        f"({m['cpu']}), {'GPU ' + m['gpu'] if m['gpu'] else 'no GPU'}, device {t['device']}",
        f"- training data licence: {licence or 'not stated (pass --licence)'}",
        "",
    ]
    if test is not None:
        lines += ["## Test figures of the same run", "", test.markdown(), ""]
    return "\n".join(lines)
