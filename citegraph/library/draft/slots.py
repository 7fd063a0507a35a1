"""A draft's citation slots and what the readers share: the markers, limits and the
LaTeX commands and environments they know."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..entries import LibraryEntry

SLOT_MARKER = "[CIT]"  # the citation to recommend, as ingest marks citing sentences
OTHER_MARKER = "[REF]"  # any other citation of the sentence
UNKNOWN_KEY = "?"
# What a draft may hold, the one place for its limits (docs/reliability.md): below them, reading
# and recommending take time linear in the draft's size and slots.
MAX_DRAFT_BYTES = 5_000_000  # a draft's file; a long thesis is ~1 MB of LaTeX
MAX_SENT_TEXT = 900_000  # characters of a draft or a bibliography sent to the service: under its 1 MiB body
MAX_CONTEXT_CHARS = 5_000
MAX_SLOTS = 1_000  # citation slots of a draft's file (`citegraph cite`); a thesis has a few hundred citations
MAX_SENT_SLOTS = 100  # ... of a draft sent to the service (POST /cite, the MCP tool): one request's work
MAX_SENTENCE_CHARS = 5_000  # a slot's sentence and each of its neighbours: prose has sentence ends long before
MAX_FRONT_MATTER_DEPTH = 20  # nesting of a Markdown draft's YAML front matter (title, abstract, bibliography)
MAX_LATEX_RUN = 50_000  # characters of LaTeX between two pieces of markup (pylatexenc: quadratic time)
MAX_INPUT_DEPTH = 8
SENT_NAMES = {"latex": "draft.tex", "markdown": "draft.md", "text": "draft.txt"}  # a sent draft's name in messages
SENT_BIB = "bib.bib"  # ... and its bibliography's
KEYED_LIBRARIES = (".bib", ".json")  # the library files whose entries have citation keys
FORMATS = {".tex": "latex", ".ltx": "latex", ".md": "markdown", ".markdown": "markdown", ".txt": "text"}

# biblatex's and natbib's citation commands (and capitalised forms) — the key list is the last argument
CITE_COMMANDS = frozenset(
    name
    for base in (
        "cite",
        "citep",
        "citet",
        "citealp",
        "citealt",
        "citeauthor",
        "citeyear",
        "citeyearpar",
        "autocite",
        "parencite",
        "textcite",
        "footcite",
        "footcitetext",
        "smartcite",
        "supercite",
        "fullcite",
        "citenum",
    )
    for name in (base, base.capitalize(), base + "*", base.capitalize() + "*")
)
MATH_ENVIRONMENTS = frozenset(
    name
    for base in (
        "equation",
        "align",
        "alignat",
        "gather",
        "multline",
        "flalign",
        "eqnarray",
        "math",
        "displaymath",
        "dmath",
    )
    for name in (base, base + "*")
)
SKIPPED_ENVIRONMENTS = MATH_ENVIRONMENTS | {
    "verbatim",
    "Verbatim",
    "lstlisting",
    "minted",
    "comment",
    "tabular",
    "tabular*",
    "tabularx",
    "tikzpicture",
    "thebibliography",
}
FLOATS = frozenset({"figure", "figure*", "table", "table*", "wrapfigure", "wraptable", "algorithm", "algorithm*"})
HEADINGS = frozenset(
    name
    for base in ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
    for name in (base, base + "*")
)
# front matter and commands whose arguments are not prose
NOT_PROSE = frozenset(
    {
        "author",
        "date",
        "affiliation",
        "affil",
        "institute",
        "email",
        "thanks",
        "keywords",
        "bibliographystyle",
        "maketitle",
        "label",
        "nocite",
    }
)
PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
# the commands the LaTeX reader handles itself (the others pylatexenc renders as text)
READ_HERE = (
    CITE_COMMANDS
    | HEADINGS
    | NOT_PROSE
    | {"input", "include", "item", "par", "title", "bibliography", "addbibresource", "abstract", "footnote"}
)
# A citation inside a paragraph's text while it is split into sentences: 'CIT', a private-use
# pair and its number, so the splitter sees '[C…' as the start of a sentence like '[CIT]'.
TOKEN = re.compile("\\[CIT\ue000(\\d+)\ue001\\]")
_CITATIONS = re.compile(re.escape(SLOT_MARKER) + "|" + re.escape(OTHER_MARKER))  # in a slot's sentence
_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Slot:
    """One place where the author wants a citation."""

    id: int  # 1-based, in reading order
    file: Path | None  # the file holding it (an \input'ed file's own path); None for a context
    line: int | None  # 1-based, of the cite command / marker; None when the context marks no place
    column: int | None
    command: str  # how it is written: '\\citep', '[@?]', '[CIT]', '' (a context without marker)
    sentence: str  # plain text, the slot '[CIT]', other citations '[REF]'
    before: tuple[str, ...] = ()  # up to `window` sentences before it in its paragraph
    after: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()  # keys given at the slot that the bibliography lacks
    cited_in_sentence: tuple[str, ...] = ()  # resolved keys cited in the same sentence (never recommend)
    cited_in_paragraph: tuple[str, ...] = ()  # ... and in the same paragraph (the sentence's included)

    @property
    def where(self) -> str:
        """'file:line:column', what a user looks up; 'context' for a context."""
        if self.file is None:
            return "context" if self.line is None else f"context:{self.line}:{self.column}"
        return f"{self.file}:{self.line}:{self.column}"

    @property
    def text(self) -> str:
        """The slot's sentence with its neighbours."""
        return " ".join((*self.before, self.sentence, *self.after))

    @property
    def clause(self) -> str:
        """The words of its sentence that belong to this slot: those between the citation before
        it (or the sentence's start) and the slot — what a citation at the end of a clause is
        for ("We report BLEU [CIT] and test significance with paired bootstrap resampling
        [REF]" gives slot 1 "We report BLEU"). Across citations next to each other it reaches
        back to the last words before them; a slot before any word (``[CIT] showed that …``)
        takes the words after it, up to the next citation; a context without a marker is all
        its sentence. Markers are left out."""
        parts = _CITATIONS.split(self.sentence)
        markers = _CITATIONS.findall(self.sentence)
        if SLOT_MARKER not in markers:
            return " ".join(self.sentence.split())
        at = markers.index(SLOT_MARKER)  # parts[at] precedes the slot, parts[at + 1] follows it
        before = next((parts[i] for i in range(at, -1, -1) if _WORD.search(parts[i])), "")
        return " ".join((before or (parts[at + 1] if _WORD.search(parts[at + 1]) else "")).split())


@dataclass(frozen=True, slots=True)
class Draft:
    """What a draft asks for (its slots) and what it already cites (its references)."""

    source: str  # the draft's path, or 'context'
    format: str  # 'latex', 'markdown', 'text', 'context'
    slots: tuple[Slot, ...]
    title: str = ""
    abstract: str = ""
    references: dict[str, LibraryEntry] = field(default_factory=dict)  # bibliography key → entry
    bibliographies: tuple[Path, ...] = ()
    warnings: tuple[str, ...] = ()  # one line each: a missing \input, a key the bibliography lacks, ...
