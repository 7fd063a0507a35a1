"""Contextualisation on the graph: which sentences of a cited paper a citation refers to.

**The cited paper's sentences** (:func:`cited_reference`): its full text where a reader
stored one (``full_text``, one sentence a line: ScisummNet; sentence id = line number, as
the source's ``sid``), else its title (sentence id ``title``) and its abstract split into
sentences (ids ``1``, ``2`` …) with the splitter the dense encoders use. The model is the
one evaluated on CL-SciSumm's full texts; on abstracts it answers "which of the claims the
paper states up front does this citation echo".

**Citing texts** (:func:`citing_texts`): given ones, or the citing sentences stored on
``CITES`` edges — of one citing paper, or of every citing paper — whose ``[CIT]`` marker
is removed like any citation marker.

**Collection model and word vectors** (:func:`prepare_corpus`): built from the corpus in
the graph, never downloaded: p(w|C) counts the titles and abstracts of the corpus papers
(``corpus/document_ids``, then ``corpus/documents_by_id``: what the text indexes hold); the
word vectors are trained on those and on every citing sentence
(``contextualise/corpus_contexts``). One pass over the graph counts the terms, mines the
acronyms and writes the analysed texts to a file that Word2Vec reads per epoch, so memory
does not grow with the corpus; the vectors are trained when a model first needs them (BM25
and LMD never do). The build is kept in a
folder (``background.json``, ``acronyms.tsv``, ``vectors/``, ``manifest.json``) and redone
when the numbers of papers and context edges in the graph (``contextualise/corpus_size``)
differ from the manifest's. Training is single-threaded, so that it is reproducible,
and takes minutes per hundred thousand abstracts; it is done once per corpus.

**Ontology** (:func:`graph_ontology`): the files given, else the ACM concepts in the graph
(``citegraph ingest taxonomy``), else the bundled ACM CCS 2012; with the acronym
definitions mined from the corpus text, as in the evaluation.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import CitegraphError
from ..graph import GraphStore
from . import lm
from .clscisumm import Reference, make_reference
from .models import Model, Resources, query_terms, ranking, settings, strip_citations

MANIFEST, BACKGROUND, VECTORS, ACRONYMS, CORPUS = (
    "manifest.json",
    "background.json",
    "vectors",
    "acronyms.tsv",
    "corpus.txt",
)
CONTEXT_LIMIT = 20


@dataclass(frozen=True, slots=True)
class Evidence:
    """One sentence of the cited paper, as ranked for a citing text."""

    rank: int
    sid: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class CitingText:
    text: str
    citing: str | None = None  # the citing paper, when the text comes from a CITES edge


@dataclass(frozen=True, slots=True)
class Contextualised:
    cited: str
    citing: CitingText
    evidence: tuple[Evidence, ...]


# -- texts from the graph ----------------------------------------------------------------
def cited_reference(store: GraphStore, paper_id: str) -> Reference:
    from ..retrieval.corpus import documents_by_id
    from ..retrieval.sentences import split_sentences

    stored = store.run("contextualise/full_text", id=paper_id)
    if stored and stored[0]["full_text"]:
        lines = stored[0]["full_text"].split("\n")
        return make_reference(paper_id, [(str(sid), line) for sid, line in enumerate(lines) if line.strip()])
    doc = documents_by_id(store, [paper_id]).get(paper_id)
    if doc is None:
        raise CitegraphError(f"paper {paper_id!r} is not in the graph")
    title, abstract = doc.title.strip(), doc.abstract.strip()
    texts = ([("title", title)] if title else []) + [(str(i), s) for i, s in enumerate(split_sentences(abstract), 1)]
    if not texts:
        raise CitegraphError(f"paper {paper_id!r} has neither a title nor an abstract in the graph: nothing to rank")
    return make_reference(paper_id, texts)


def citing_texts(
    store: GraphStore, cited: str, texts: Sequence[str] = (), citing: str | None = None, limit: int = CONTEXT_LIMIT
) -> list[CitingText]:
    """The given texts; else the sentences on ``citing``'s edge to ``cited``; else those of every citing paper."""
    if texts:
        return [CitingText(t) for t in texts]
    if citing:
        rows = store.run("contextualise/edge_contexts", citing=citing, cited=cited)
        if not rows:
            raise CitegraphError(f"{citing} does not cite {cited} in the graph")
        if not rows[0]["contexts"]:
            raise CitegraphError(f"the citation {citing} → {cited} holds no citing sentences; pass --citing TEXT")
        return [CitingText(t, citing) for t in rows[0]["contexts"]]
    rows = store.run("contextualise/cited_contexts", cited=cited, limit=limit)
    if not rows:
        raise CitegraphError(f"no citation of {cited} in the graph holds citing sentences; pass --citing TEXT")
    return [CitingText(t, row["citing"]) for row in rows for t in row["contexts"]]


# -- collection model, word vectors, ontology ----------------------------------------------
def _corpus_size(store: GraphStore) -> dict[str, int]:
    return store.run("contextualise/corpus_size")[0]


def _export(store: GraphStore, folder: Path) -> tuple[lm.Background, list[list[str]], dict[str, int]]:
    """One pass over the corpus: analysed texts to ``corpus.txt``, the collection counts, mined acronyms."""
    from ..retrieval.bm25 import analyze
    from ..retrieval.corpus import documents
    from .ontology import from_acronyms

    background = lm.Background.from_terms(())
    counts = {"papers": 0, "contexts": 0, "texts": 0}

    def written(out, text: str, terms: list[str]) -> Iterator[str]:
        if terms:
            out.write(" ".join(terms) + "\n")
            counts["texts"] += 1
            yield text

    def texts(out) -> Iterator[str]:  # the raw texts, for the acronym miner
        for doc in documents(store):
            counts["papers"] += 1
            for text in (doc.title, doc.abstract):
                terms = analyze(text)
                background.counts.update(terms)
                yield from written(out, text, terms)
        for row in store.rows("contextualise/corpus_contexts"):
            counts["contexts"] += 1
            for text in row["contexts"]:
                yield from written(out, text, analyze(strip_citations(text)))

    with open(folder / CORPUS, "w", encoding="utf-8") as out:
        _, sets = from_acronyms(texts(out), "acronyms mined from the graph's texts")
    background.total = sum(background.counts.values())
    return background, sets, counts


def prepare_corpus(
    store: GraphStore, folder: Path, rebuild: bool = False, log: Callable[[str], None] = lambda message: None
) -> dict:
    """Export the graph's texts to ``folder`` and count them, unless a build of the same corpus is there."""
    from .ontology import write_thesaurus

    folder = Path(folder)
    size = _corpus_size(store)
    if not size["papers"]:
        raise CitegraphError("the graph holds no papers with text to learn word statistics from; ingest a corpus first")
    manifest_path = folder / MANIFEST
    if not rebuild and manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("corpus") == size:
            return manifest
        log(f"the graph changed since the contextualisation build ({manifest.get('corpus')} → {size}): rebuilding")
    if (folder / VECTORS).exists():
        shutil.rmtree(folder / VECTORS)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    log(f"reading {size['papers']:,} papers and {size['contexts']:,} citation contexts from the graph")
    background, sets, counts = _export(store, folder)
    write_thesaurus(
        folder / ACRONYMS,
        sets,
        "acronym definitions found in the graph's titles, abstracts and "
        "citing sentences (Schwartz & Hearst); thesaurus format: phrase<TAB>synonym",
    )
    (folder / BACKGROUND).write_text(json.dumps(background.to_json()) + "\n", encoding="utf-8")
    manifest = {
        "corpus": size,
        "read": counts,
        "terms": len(background.counts),
        "tokens": background.total,
        "acronyms": len(sets),
        "seconds": round(time.perf_counter() - started, 1),
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def word_vectors(folder: Path, log: Callable[[str], None] = lambda message: None):
    """The word vectors of the exported corpus, trained on first need (only the WE models need them)."""
    from .word_vectors import WordVectors, train_word2vec

    folder = Path(folder)
    if WordVectors.exists(folder / VECTORS):
        return WordVectors.load(folder / VECTORS)
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    log(f"training word vectors on {manifest['read']['texts']:,} texts of the graph (once)")

    def corpus() -> Iterator[list[str]]:
        with open(folder / CORPUS, encoding="utf-8") as f:
            yield from (line.split() for line in f)

    vectors = train_word2vec(corpus)
    vectors.save(folder / VECTORS)
    log(f"{len(vectors):,} terms have a vector; τ = {vectors.tau:.3f}")
    (folder / CORPUS).unlink()  # only the training reads it; a rebuild writes it again
    return vectors


def graph_ontology(store: GraphStore, files: Sequence[Path] = (), acronyms: Path | None = None):
    """The synonyms of the domain-knowledge models (see the module doc)."""
    from .ontology import Ontology, bundled_ccs, from_labels, read_ontology, read_thesaurus

    if files:
        parts = [read_ontology(p) for p in files]
    else:
        rows = [(r["label"], r["alt_labels"] or ()) for r in store.rows("contextualise/acm_labels")]
        parts = [from_labels(rows, "ACM concepts in the graph")] if rows else [read_ontology(bundled_ccs())]
    if acronyms is not None and Path(acronyms).is_file():
        parts.append(read_thesaurus(acronyms))
    return Ontology().merge(*parts)


def graph_resources(
    store: GraphStore,
    model: Model,
    folder: Path,
    ontologies: Sequence[Path] = (),
    rebuild: bool = False,
    log: Callable[[str], None] = lambda message: None,
) -> Resources:
    """What ``model`` needs, from the graph (built into ``folder`` on first use)."""
    from .word_vectors import retrofit

    folder = Path(folder)
    prepare_corpus(store, folder, rebuild, log)
    background = lm.Background.from_json(json.loads((folder / BACKGROUND).read_text(encoding="utf-8")))
    resources = Resources(background)
    if "vectors" in model.needs:
        resources.vectors = word_vectors(folder, log)
    if "ontology" in model.needs:
        resources.ontology = graph_ontology(store, ontologies, folder / ACRONYMS)
        if "retrofitted" in model.needs:
            resources.retrofitted = retrofit(resources.vectors or word_vectors(folder, log), resources.ontology)
    return resources


# -- ranking -----------------------------------------------------------------------------
def contextualise(
    reference: Reference,
    texts: Sequence[CitingText],
    model: Model,
    resources: Resources,
    k: int = 3,
    params: dict | None = None,
) -> list[Contextualised]:
    """The top ``k`` sentences of ``reference`` for each citing text (``params``: default the model's defaults)."""
    from ..retrieval.bm25 import analyze

    sentences = lm.SentenceSet([analyze(s.text) for s in reference.sentences])
    params = settings(model) if params is None else params
    found = []
    for citing in texts:
        query = query_terms(citing.text)
        if not query:
            raise CitegraphError(f"the citing text {citing.text[:80]!r} holds no content words to match")
        scores = model.score(model.prepare(query, sentences, resources), params)
        top = ranking(scores)[:k]
        found.append(
            Contextualised(
                reference.id,
                citing,
                tuple(
                    Evidence(rank, reference.sentences[i].sid, reference.sentences[i].text, float(scores[i]))
                    for rank, i in enumerate(top, 1)
                ),
            )
        )
    return found
