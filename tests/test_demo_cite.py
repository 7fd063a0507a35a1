"""The demo's question to ``cite`` (issue 26): a real paragraph of an ACL paper from ScisummNet,
bundled with its bibliography and licence, one citation held out; on the ACL-200 graph (the
``acl`` fixture) the held-out paper comes among the top 5, with reasons from the graph."""

from __future__ import annotations

from citegraph.recommend.demo import HELD_OUT, PARAGRAPH, cite_paragraph


def test_the_bundled_paragraph_carries_its_attribution_and_licence():
    folder = PARAGRAPH.parent
    attribution = (folder / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "D11-1006" in attribution and "CC BY-SA 4.0" in attribution
    assert (
        (folder / "LICENSE.CC-BY-SA-4.0")
        .read_text(encoding="utf-8")
        .startswith("Attribution-ShareAlike 4.0 International")
    )
    assert "\\cite{?,nivre2006}" in PARAGRAPH.read_text(encoding="utf-8")
    assert "mcdonald2005" not in PARAGRAPH.with_suffix(".bib").read_text(encoding="utf-8")  # held out


def test_the_held_out_citation_is_among_the_top_5_with_reasons(acl):
    held_out = cite_paragraph(acl)
    [slot] = held_out.cited.slots
    assert slot.slot.sentence == (
        "This includes work on phrase-structure parsing [REF], dependency parsing [CIT] as well as a number "
        "of other formalisms [REF]."
    )
    assert held_out.rank is not None and held_out.rank <= 5, [s.id for s in slot.suggestions]
    [suggested] = [s for s in slot.suggestions if s.id == HELD_OUT]
    reasons = {s.name for s in suggested.signals}
    assert {"cocitation", "cited_by_references"} & reasons, reasons  # the paragraph's references vouch for it
    assert all(s.year is None or s.year <= held_out.as_of for s in slot.suggestions)
    matched = {m.paper for m in held_out.cited.references if m.paper}
    assert HELD_OUT not in matched and len(matched) == 9
