"""The bi-encoder reranker: a pretrained LM fine-tuned on citation contexts with in-batch
and graph hard negatives (the MDCR negative types), ranking each context's candidates by
cosine.

Query and candidate are encoded apart (mean-pooled, as all-MiniLM was trained), so a
candidate's vector is computed once for every context that lists it — the cross-encoder
(:mod:`.symtax`) runs the LM once per (context, candidate) pair, which is what kept it
from learning on a CPU budget. Training minimises the multiple-negatives ranking loss
(van den Oord et al. 2018; Henderson et al. 2017): for a batch of B contexts, the
softmax cross-entropy of ``scale · cos(q_i, d_j)`` over every positive and hard negative
of the batch, the target being q_i's cited paper; a paper that q_i also cites is masked
out rather than counted as a negative.

Hard negatives, one of each ``negatives`` type per context, all from the training side
(no test context, no held-out edge can leak in):

* ``prefetch`` — a paper the first stage ranked high (its top ``prefetch_top``) that this
  context does not cite: the lexical look-alikes BM25 confuses with the answer;
* ``cocited`` — another paper the same citing paper cites (in the training contexts):
  topically close, the wrong one for this sentence;
* ``popular`` — one of the ``popular_top`` papers the training contexts cite most: a
  bias a reranker must not learn.

**Why a short torch loop and not sentence-transformers' trainer**: sentence-transformers
is not a declared dependency of any extra (the ``[dense]`` stack is torch + transformers),
the loss is ten lines, and the LM is loaded through the same encoder seam
(:class:`.encoding.PairEncoder` → :func:`citegraph.retrieval.dense.encoders.get_encoder`) as every
other model here, so ``minilm``, ``hf:<folder>`` and the device choice work unchanged.

**Device**: ``device`` None picks CUDA when present (:func:`.encoding.default_device`), the
same code path as on this CPU; see the README for paper-scale settings.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..errors import CitegraphError
from ..heavy import torch
from ..options import option
from ..retrieval.base import Ranking, rank
from .data import Context
from .encoding import DEVICE, NO_TEXT, Candidate, PairEncoder, default_device

NEGATIVE_TYPES = ("prefetch", "cocited", "popular")
#: --seed, one knob of the experiment and of the bi-encoder's training
SEED = option("--seed", "The seed of sampling and training.")


def checkpoint_steps(values: Sequence[str]) -> tuple[int, ...]:
    """``--bi-checkpoints`` as steps."""
    try:
        return tuple(int(v) for v in values)
    except ValueError:
        raise CitegraphError(f"--bi-checkpoints: {','.join(values)!r} is not a comma-separated list of steps") from None


@dataclass(frozen=True)
class BiEncoderConfig:
    lm: str = "minilm"  # an encoder name of citegraph.retrieval.dense.encoders, or hf:<hub id or folder>
    max_length: int = field(
        default=128, metadata=option("--bi-max-length", "Bi-encoder tokens of a context or a candidate.", minimum=8)
    )
    batch_queries: int = field(
        default=32,
        metadata=option(  # each one's positive is a negative of the others
            "--bi-batch", "Bi-encoder contexts per step (in-batch negatives of each other).", minimum=1
        ),
    )
    negatives: tuple[str, ...] = field(
        default=NEGATIVE_TYPES,
        metadata=option(
            "--bi-negatives",
            f"Bi-encoder hard negatives per context, one of each: {', '.join(NEGATIVE_TYPES)} ('' for in-batch only).",
        ),
    )
    prefetch_top: int = 20
    popular_top: int = 100
    max_steps: int = field(
        default=300, metadata=option("--bi-steps", "Bi-encoder training steps (the CPU bound).", minimum=0)
    )
    checkpoints: tuple[int, ...] = field(
        default=(),
        metadata=option(
            "--bi-checkpoints",
            "Bi-encoder steps, before the last, at which the model also ranks the test contexts "
            "(rows of the table: a learning curve from one run), e.g. '100,200,400'.",
            convert=checkpoint_steps,
        ),
    )
    lr: float = field(
        default=2e-5, metadata=option("--bi-lr", "Bi-encoder learning rate.", minimum=0, open_bounds=True)
    )
    warmup: float = 0.1  # share of the steps with a linearly rising learning rate
    scale: float = 20.0  # the inverse temperature of the cosine logits (sentence-transformers' default)
    batch_size: int = 64  # texts per LM pass when ranking
    seed: int = field(default=12, metadata=SEED)
    device: str | None = field(default=None, metadata=DEVICE)  # None: cuda when available, else cpu

    def __post_init__(self) -> None:
        unknown = sorted(set(self.negatives) - set(NEGATIVE_TYPES))
        if unknown:
            raise CitegraphError(
                f"unknown negative type(s) {', '.join(unknown)}; choose from {', '.join(NEGATIVE_TYPES)}"
            )
        late = [s for s in self.checkpoints if not 0 < s < self.max_steps]
        if late:
            raise CitegraphError(
                f"checkpoint step(s) {', '.join(map(str, late))} not between 0 and the last step ({self.max_steps})"
            )
        if self.batch_queries < 2 and not self.negatives:
            raise CitegraphError("one context per batch and no hard negatives leave nothing to contrast")


@dataclass(frozen=True, slots=True)
class Training:
    """A training context and its first-stage list (the ``prefetch`` negatives come from it)."""

    context: Context
    prefetched: tuple[str, ...]


class HardNegatives:
    """Draws the hard negatives of a training context (see the module docstring)."""

    def __init__(self, examples: Sequence[Training], config: BiEncoderConfig):
        self.config = config
        self.cited_by: dict[str, set[str]] = {}
        counts: Counter[str] = Counter()
        for e in examples:
            self.cited_by.setdefault(e.context.citing, set()).update(e.context.cited)
            counts.update(e.context.cited)
        self.popular = [p for p, _ in counts.most_common(config.popular_top)]

    def draw(self, example: Training, rng: np.random.Generator) -> list[str]:
        cited = set(example.context.cited)
        pools = {
            "prefetch": [p for p in example.prefetched[: self.config.prefetch_top] if p not in cited],
            "cocited": sorted(self.cited_by.get(example.context.citing, set()) - cited),
            "popular": [p for p in self.popular if p not in cited],
        }
        return [pool[int(rng.integers(len(pool)))] for kind in self.config.negatives if (pool := pools[kind])]


class BiEncoder:
    """An LM (its own copy, fine-tuned) encoding contexts and candidates apart."""

    def __init__(self, config: BiEncoderConfig, encoder: PairEncoder, corpus: Mapping[str, Candidate]):
        torch.manual_seed(config.seed)
        self.config, self.corpus = config, corpus
        self.encoder = encoder.copy()
        self.encoder.max_length = min(config.max_length, encoder.max_length)
        self.steps, self.seconds = 0, 0.0
        self.losses: list[float] = []

    def _vectors(self, texts: Sequence[str]):
        return torch.nn.functional.normalize(self.encoder.pairs(texts, None), dim=-1)

    def loss(self, batch: Sequence[tuple[Context, str, list[str]]]):
        """The multiple-negatives ranking loss of (context, positive, hard negatives) triples."""
        documents = list(dict.fromkeys([p for _, p, _ in batch] + [n for _, _, negs in batch for n in negs]))
        column = {d: j for j, d in enumerate(documents)}
        queries = self._vectors([c.query_text for c, _, _ in batch])
        candidates = self._vectors([self.corpus.get(d, NO_TEXT).text for d in documents])
        logits = self.config.scale * queries @ candidates.T
        also_cited = torch.zeros_like(logits, dtype=torch.bool)
        for i, (context, positive, _) in enumerate(batch):
            for other in set(context.cited) - {positive}:
                if other in column:
                    also_cited[i, column[other]] = True
        target = torch.tensor([column[p] for _, p, _ in batch], device=logits.device)
        return torch.nn.functional.cross_entropy(logits.masked_fill(also_cited, float("-inf")), target)

    def train(
        self,
        examples: Sequence[Training],
        log: Callable[[str], None] | None = None,
        at_checkpoint: Callable[[int], None] | None = None,
    ) -> list[float]:
        """Up to ``max_steps`` steps of ``batch_queries`` contexts, cycling through shuffled examples;
        ``at_checkpoint(step)`` is called, the model in eval mode, after each of ``checkpoints``
        (a learning curve from one run: the learning rate follows the whole run's schedule);
        ``seconds`` is then the training time so far, without the time spent at checkpoints."""
        config, started, at_checkpoints = self.config, time.perf_counter(), 0.0
        usable = [e for e in examples if e.context.cited]
        if not usable or config.max_steps <= 0:
            return []
        rng = np.random.default_rng(config.seed)
        negatives = HardNegatives(usable, config)
        optimizer = torch.optim.AdamW(self.encoder.model.parameters(), lr=config.lr)
        warmup = max(1, int(config.warmup * config.max_steps))
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda s: min((s + 1) / warmup, max(0.0, (config.max_steps - s) / (config.max_steps - warmup + 1))),
        )
        order, position = rng.permutation(len(usable)), 0
        self.encoder.model.train()
        every = max(1, config.max_steps // 10)
        for step in range(config.max_steps):
            batch: list[tuple[Context, str, list[str]]] = []
            while len(batch) < min(config.batch_queries, len(usable)):
                if position == len(order):
                    order, position = rng.permutation(len(usable)), 0
                example = usable[order[position]]
                position += 1
                positive = example.context.cited[int(rng.integers(len(example.context.cited)))]
                batch.append((example.context, positive, negatives.draw(example, rng)))
            optimizer.zero_grad()
            loss = self.loss(batch)
            loss.backward()
            optimizer.step()
            schedule.step()
            self.steps += 1
            self.losses.append(float(loss.detach()))
            self.seconds = time.perf_counter() - started - at_checkpoints
            if log and (step + 1) % every == 0:
                log(
                    f"step {step + 1}/{config.max_steps}: loss {np.mean(self.losses[-every:]):.4f} "
                    f"({self.seconds / (step + 1):.1f} s/step)"
                )
            if at_checkpoint and step + 1 in config.checkpoints:
                paused = time.perf_counter()
                self.encoder.model.eval()
                at_checkpoint(step + 1)
                self.encoder.model.train()
                at_checkpoints += time.perf_counter() - paused
        self.encoder.model.eval()
        return self.losses

    def text_of(self, paper: str) -> str:
        """What the model reads of a candidate (empty for a paper without text)."""
        return self.corpus.get(paper, NO_TEXT).text

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, ``batch_size`` texts a pass."""
        return _normalised(self.encoder.embed(list(texts), batch_size=self.config.batch_size))

    def rank(self, contexts: Sequence[Context], candidates: Sequence[Sequence[str]]) -> list[Ranking]:
        """Each context's candidates by cosine, best first; every distinct text encoded once."""
        texts = list(dict.fromkeys(self.text_of(p) for ids in candidates for p in ids))
        vectors = self.embed(texts)
        row = {t: i for i, t in enumerate(texts)}
        queries = self.embed([c.query_text for c in contexts])
        rankings = []
        for q, ids in zip(queries, candidates):
            ids = list(dict.fromkeys(ids))
            scores = vectors[[row[self.text_of(p)] for p in ids]] @ q
            rankings.append(rank(dict(zip(ids, scores.tolist())), len(ids)))
        return rankings

    def describe(self) -> dict[str, Any]:
        return {
            **asdict(self.config),
            "device": self.config.device or default_device(),
            "steps": self.steps,
            "train_seconds": round(self.seconds, 1),
            "first_loss": None if not self.losses else float(np.mean(self.losses[:10])),
            "final_loss": None if not self.losses else float(np.mean(self.losses[-10:])),
        }


def _normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
