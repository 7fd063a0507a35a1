"""What both local models read: a paper as a :class:`Candidate` (its text and categories) and
the language model (:class:`PairEncoder`) that encodes single texts (the bi-encoder,
:mod:`.biencoder`) and ``query [SEP] candidate`` pairs (SymTax's cross-encoder, :mod:`.symtax`).

torch is reached through :mod:`citegraph.heavy`: importing this module loads nothing heavy.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..heavy import torch
from ..options import option

#: --device, one knob of both models (the reranker's and the bi-encoder's)
DEVICE = option("--device", "torch device [default: cuda when available, else cpu].")


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the reranker reads of a paper: its text (title + abstract, maybe empty) and categories."""

    text: str
    categories: tuple[str, ...] = ()


NO_TEXT = Candidate("")


# -- the language model -----------------------------------------------------------------------
class PairEncoder:
    """A transformer reading ``query [SEP] candidate`` pairs, mean-pooled (also single texts)."""

    def __init__(self, name: str, max_length: int = 256, device: str | None = None):
        from ..retrieval.dense.encoders import get_encoder

        loaded = get_encoder(name, device=device, dtype="float32")
        self.name = name
        self.tokenizer = loaded.tokenizer
        self.model = loaded.model
        self.device = loaded.device
        self.max_length = min(max_length, loaded.max_length)
        self.dim: int = loaded.dim

    def copy(self) -> PairEncoder:
        twin = copy.copy(self)
        twin.model = copy.deepcopy(self.model)
        return twin

    def _batch(self, first: Sequence[str], second: Sequence[str] | None):
        encoded = self.tokenizer(
            self._cut(first),
            self._cut(second) if second is not None else None,
            truncation=True,
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        return {k: v.to(self.device) for k, v in encoded.items()}

    def _cut(self, texts: Sequence[str]) -> list[str]:
        """Each text up to the end of its first ``max_length`` tokens.

        Nothing after them can survive the pair's truncation (which still balances the two
        sides, give or take a token), and the tokenizers library truncates a pair ("longest
        first") token by token: pairs of texts of thousands of tokens took 40–90 ms each to
        tokenise, cut first about 2 ms.
        """
        if not getattr(self.tokenizer, "is_fast", False):
            return list(texts)
        offsets = self.tokenizer(
            list(texts),
            add_special_tokens=False,
            truncation=True,
            max_length=self.max_length,
            return_offsets_mapping=True,
        )["offset_mapping"]
        return [text[: spans[-1][1]] if spans else text for text, spans in zip(texts, offsets)]

    def pairs(self, queries: Sequence[str], candidates: Sequence[str] | None):
        """(pairs, D): the joint embedding e_tr of each pair (or of each query alone, with
        ``candidates`` None: a bi-encoder's vectors), with gradients when training."""
        return self._pooled(self._batch(queries, candidates))

    def _pooled(self, batch):
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp_min(1.0)

    def embed(self, texts: Sequence[str], second: Sequence[str] | None = None, batch_size: int = 64) -> np.ndarray:
        """Mean-pooled vectors without gradients, longest first in batches, in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]) - (len(second[i]) if second else 0))
        was_training = self.model.training
        self.model.eval()
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                a = [texts[i] for i in rows]
                b = [second[i] for i in rows] if second is not None else None
                out[rows] = self._pooled(self._batch(a, b)).float().cpu().numpy()
        self.model.train(was_training)
        return out


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"
