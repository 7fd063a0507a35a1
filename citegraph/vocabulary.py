"""The domain's vocabulary, below every layer: fields of study and how ids are spelled.

Readers, benchmark builders, the synthetic corpus and the evaluation all name the same
fields and normalise ids and names the same way; they import them from here, not from
each other.
"""

from __future__ import annotations

import unicodedata

#: The 19 top-level fields of study of the Microsoft Academic Graph, as S2ORC and MDCR use them.
MAG_FIELDS = ("Art", "Biology", "Business", "Chemistry", "Computer Science", "Economics", "Engineering",
              "Environmental Science", "Geography", "Geology", "History", "Materials Science",
              "Mathematics", "Medicine", "Philosophy", "Physics", "Political Science", "Psychology",
              "Sociology")


def nfc(value: str) -> str:
    """Unicode NFC, so that 'ĭ' typed as i + combining breve equals the precomposed one."""
    return value if unicodedata.is_normalized("NFC", value) else unicodedata.normalize("NFC", value)


def canonical_id(value: str) -> str:
    """The one form of an id, as stored at ingest and looked up by every caller: stripped
    and NFC, so that 'é' given as e + combining accent finds the paper stored as 'é'."""
    return nfc(value.strip())


def author_name_id(name: str) -> str:
    """The id of an author known only by name: 'name:' and the case-folded name.

    Sources without author ids give no way to tell two people of one name apart, so they
    share a node; sources with ids keep theirs. ``name`` is whitespace-normalised already.
    """
    return "name:" + name.casefold()
