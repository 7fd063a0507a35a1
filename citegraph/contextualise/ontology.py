"""Synonyms for the domain-knowledge model: ontology files, term pairs, mined acronyms.

The model needs one relation between analysed terms (stems): is-synonym (q ≈ t in
f_ont, and the pairs retrofitting pulls together). An ontology gives synonyms between
*phrases*; this module turns them into term pairs.

**Files** (:func:`read_ontology`; any may be gzipped, bzip2ed or xz'ed):

* **SKOS** (``.xml``, ``.rdf``, ``.skos``): every ``skos:Concept``'s ``prefLabel`` and
  ``altLabel`` s are one synonym set — ACM CCS 2012 (the bundled copy has prefLabels
  only), MeSH or any thesaurus published as SKOS.
* **Thesaurus** (``.tsv``, ``.txt``): one synonym set a line, its phrases separated by
  TABs: ``term<TAB>synonym[<TAB>synonym…]``. Blank lines and lines starting with ``#``
  are skipped; a line with a single phrase is an error (file and line named).

**What is a synonym.** Only what the ontology states as the same concept:

* the labels of one concept (prefLabel ↔ altLabels);
* a label's parenthesised acronym, when its letters spell the words before it
  (Schwartz & Hearst's test): "Human computer interaction (HCI)" gives HCI ↔ human
  computer interaction, while "Physical design (EDA)" and "Heap (data structure)" give
  nothing.

Not synonyms, on purpose: a concept and its broader or narrower concepts (hypernyms:
"Machine translation" is not "Natural language processing"), siblings and the parts of
"A / B" or "A, B and C" labels (co-hyponyms: "Phonology / morphology"), the head word a
multiword label shares with others ("Supervised learning", "Unsupervised learning"), and
the arXiv→ACM category names (areas, not terms). Pulling those together would tell the
model that parsing is machine translation.

**Term pairs.** Two synonymous phrases A and B, analysed into terms, give every pair
(a, b) with a in A but not in B, and b in B but not in A: HCI ↔ human computer
interaction gives hci–human, hci–comput, hci–interact. Words of one phrase are not
synonyms of each other. A bag-of-words model cannot do better without phrase matching;
γ, tuned on development data, says how much the pairs are worth.

**Mined acronyms** (:func:`mine_acronyms`): the bundled ACM CCS 2012 has prefLabels only
and so gives 8 synonym sets in all, the label acronyms (HCI, NFS, SOAP, WSDL, UDDI, UML,
RDF, FDDI), none of them about language. The in-domain synonym knowledge the papers themselves state is their acronym
definitions — "statistical machine translation (SMT)", "conditional random fields
(CRFs)" — found with Schwartz & Hearst's (2003) algorithm in the corpus text (no gold
labels are used). :func:`write_thesaurus` saves them in the thesaurus format so that a
user can review and extend them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CitegraphError, InputError, Problem
from ..ingest.source import lines, skos_concepts
from ..retrieval.bm25 import analyze

SKOS_SUFFIXES = (".xml", ".rdf", ".skos")
THESAURUS_SUFFIXES = (".tsv", ".txt")
_COMPRESSED = (".gz", ".bz2", ".xz")
_PAREN = re.compile(r"\(([^()]{2,12})\)")
_LABEL_ACRONYM = re.compile(r"^(.*?)\s*\(([^()]+)\)\s*(.*)$")


@dataclass
class Ontology:
    """Symmetric synonym relation between analysed terms."""

    neighbours: dict[str, frozenset[str]] = field(default_factory=dict)
    sources: list[dict] = field(default_factory=list)  # per input: name, synonym sets, term pairs

    @property
    def pairs(self) -> int:
        return sum(len(v) for v in self.neighbours.values()) // 2

    def synonyms(self, term: str) -> frozenset[str]:
        return self.neighbours.get(term, frozenset())

    def __bool__(self) -> bool:
        return bool(self.neighbours)

    @classmethod
    def from_sets(cls, sets: Iterable[Sequence[str]], source: str = "") -> Ontology:
        """From synonym sets of phrases (each set: phrases naming one concept)."""
        links: dict[str, set[str]] = {}
        count = 0
        for phrases in sets:
            analysed = [set(analyze(p)) for p in dict.fromkeys(p.strip() for p in phrases if p.strip())]
            count += 1
            for i, a in enumerate(analysed):
                for b in analysed[i + 1 :]:
                    for x in a - b:
                        for y in b - a:
                            links.setdefault(x, set()).add(y)
                            links.setdefault(y, set()).add(x)
        ontology = cls({t: frozenset(n) for t, n in links.items()})
        ontology.sources.append({"source": source, "sets": count, "pairs": ontology.pairs})
        return ontology

    def merge(self, *others: Ontology) -> Ontology:
        links: dict[str, set[str]] = {t: set(n) for t, n in self.neighbours.items()}
        for other in others:
            for t, n in other.neighbours.items():
                links.setdefault(t, set()).update(n)
        return Ontology(
            {t: frozenset(n) for t, n in links.items()}, [*self.sources, *(s for o in others for s in o.sources)]
        )


# -- acronyms ------------------------------------------------------------------------
def _is_short_form(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return (
        2 <= len(text) <= 10
        and text[0].isalnum()
        and " " not in text.strip()
        and sum(c.isupper() for c in letters) >= 2
    )


def long_form(short: str, before: str) -> str | None:
    """The words of ``before`` (the text left of "(short)") that ``short`` abbreviates.

    Schwartz & Hearst (2003): match the short form's letters right to left in at most
    min(|short| + 5, 2·|short|) preceding words, its first letter at the start of a word.
    """
    words = before.split()
    window = " ".join(words[-min(len(short) + 5, 2 * len(short)) :])
    s, candidate = short.lower(), window.lower()
    si, li = len(s) - 1, len(candidate) - 1
    while si >= 0:
        c = s[si]
        if not c.isalnum():
            si -= 1
            continue
        while li >= 0 and (candidate[li] != c or (si == 0 and li > 0 and candidate[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        li -= 1
        si -= 1
    start = candidate.rfind(" ", 0, li + 1) + 1
    found = window[start:].strip(" ,;:")
    if len(found.split()) < 2 or len(found) <= len(short) or short.lower() in found.lower().split():
        return None
    return found


def mine_acronyms(texts: Iterable[str]) -> Counter[tuple[str, str]]:
    """(short form, long form) → how often a text defines it as "long form (SF)"."""
    found: Counter[tuple[str, str]] = Counter()
    for text in texts:
        for match in _PAREN.finditer(text):
            short = match.group(1).strip()
            if not _is_short_form(short):
                continue
            before = re.split(r"[.;:!?()\[\]]", text[: match.start()])[-1]
            lf = long_form(short, before)
            if lf:
                found[(short, " ".join(lf.split()).lower())] += 1
    return found


def from_acronyms(texts: Iterable[str], source: str = "mined acronyms") -> tuple[Ontology, list[list[str]]]:
    """The ontology of the acronyms the texts define, and its synonym sets (for write_thesaurus)."""
    sets = [[short, long] for (short, long), _ in sorted(mine_acronyms(texts).items())]
    return Ontology.from_sets(sets, source), sets


def label_sets(label: str, alt_labels: Sequence[str] = ()) -> list[list[str]]:
    """The synonym sets one concept's labels state (see the module doc)."""
    names, sets = [], []
    for text in [label, *alt_labels]:
        if not text or not text.strip():
            continue
        match = _LABEL_ACRONYM.match(text.strip())
        if match and _is_short_form(match.group(2).strip()):
            head, short = match.group(1), match.group(2).strip()
            expansion = long_form(short, head)
            if expansion:
                sets.append([expansion, short])
            text = f"{head} {match.group(3)}".strip()
        names.append(text)
    if len(names) > 1:
        sets.append(names)
    return sets


def from_labels(rows: Iterable[tuple[str | None, Sequence[str]]], source: str) -> Ontology:
    """From concepts given as (prefLabel, altLabels)."""
    return Ontology.from_sets((s for label, alts in rows for s in label_sets(label or "", alts or ())), source)


# -- files ---------------------------------------------------------------------------
def _kind(path: Path) -> str:
    name = path.name.lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    if name.endswith(SKOS_SUFFIXES):
        return "skos"
    if name.endswith(THESAURUS_SUFFIXES):
        return "thesaurus"
    raise CitegraphError(
        f"{path}: an ontology is SKOS XML ({', '.join(SKOS_SUFFIXES)}) or a TAB-separated "
        f"thesaurus ({', '.join(THESAURUS_SUFFIXES)}), optionally compressed"
    )


def read_ontology(path: Path) -> Ontology:
    path = Path(path)
    if not path.is_file():
        raise CitegraphError(f"{path}: no such ontology file")
    return read_skos(path) if _kind(path) == "skos" else read_thesaurus(path)


def read_skos(path: Path) -> Ontology:
    rows = []
    for _where, concept in skos_concepts(Path(path)):
        if isinstance(concept, Problem):
            raise InputError(concept)
        labels = [label.strip() for label in concept.pref_labels if label.strip()]
        if labels or concept.alt_labels:
            rows.append((labels[0] if labels else None, [*labels[1:], *concept.alt_labels]))
    return from_labels(rows, str(path))


def read_thesaurus(path: Path) -> Ontology:
    sets = []
    for where, text in lines(Path(path)):
        if isinstance(text, Problem):
            raise InputError(text)
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        phrases = [p.strip() for p in text.rstrip("\r\n").split("\t") if p.strip()]
        if len(phrases) < 2:
            raise InputError(Problem(where, None, "expected a term and at least one synonym, separated by TABs"))
        if not any(analyze(p) for p in phrases):
            raise InputError(Problem(where, None, "holds only stopwords or punctuation"))
        sets.append(phrases)
    return Ontology.from_sets(sets, str(path))


def write_thesaurus(path: Path, sets: Iterable[Sequence[str]], header: str = "") -> None:
    """Synonym sets in the thesaurus format (readable by :func:`read_thesaurus`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "".join(f"# {line}\n" for line in header.splitlines())
    path.write_text(head + "".join("\t".join(s) + "\n" for s in sets), encoding="utf-8")


def bundled_ccs() -> Path:
    """The ACM CCS 2012 SKOS file that ships with citegraph."""
    from ..ingest.sources.taxonomy import BUNDLED, CCS2012

    return BUNDLED / f"{CCS2012}.gz"
