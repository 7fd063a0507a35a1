"""The graph explorer page in a real headless Chromium (Playwright), against `citegraph
serve` on the ACL-200 graph: a paper or a library (uploaded, pasted, as of a date) on the
map by year with its roles; labels that never overlap and a selection shown in both the
map and the list, at three window sizes and in both layouts; the year range filtering
both; the list exported and read back. Then the explorer's own routes over HTTP.

Needs Playwright (the [dev] extra) and a Chromium: Debian's (`apt-get install chromium`,
/usr/bin/chromium) or one that `playwright install chromium` downloaded. Skipped, saying
which is missing, otherwise.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import httpx
import networkx as nx
import pytest
from http_service import acl_service

from citegraph.graph import open_store
from citegraph.library.entries import read_library
from citegraph.library.match import PaperIndex, matched_ids

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the [dev] extra)")
DEMO_BIB = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "demo" / "library.bib"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]  # a closed network: nothing phones home


@pytest.fixture(scope="module")
def browser():
    system = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    with sync_api.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=system, args=FLAGS)
        except sync_api.Error as exc:
            pytest.skip(
                f"no Chromium to drive: install Debian's (apt-get install chromium) or run "
                f"`playwright install chromium` ({str(exc).splitlines()[0]})"
            )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def service(arcade_server, server_config, tmp_path_factory):
    with acl_service(arcade_server, server_config, tmp_path_factory.mktemp("explorer")) as running:
        yield running


@pytest.fixture(scope="module")
def graph(service, server_config):
    with open_store(server_config) as store:
        yield store


@pytest.fixture
def page(browser, service):
    context = browser.new_context(viewport={"width": 1400, "height": 850})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            errors.append(message.text) if message.type == "error" and "status of 404" not in message.text else None
        ),
    )  # a 404 is an answer the page shows
    opened.goto(service.url)
    opened.wait_for_function("document.querySelectorAll('#query-name option').length > 0")
    yield opened
    context.close()
    assert not errors, errors


def drawn(page) -> set[str]:
    return set(page.evaluate("window.explorer.cy.nodes().map(n => n.id())"))


# Whether cytoscape shows a node. Its `visible()` answers from a cache that a class change
# leaves stale until the node's style is next applied (by the renderer's next frame, or by
# any read of a style property), so a style property is read first.
SHOWN = "(n => n.style('display') !== 'none' && n.visible())"


def shown(page) -> dict[str, dict]:
    """The papers the map shows (not filtered out): id → year, citations, roles, position."""
    return {
        row["id"]: row
        for row in page.evaluate(
            """window.explorer.cy.nodes().filter("""
            + SHOWN
            + """).map(n => (
        {id: n.data('pid'), year: n.data('year'), citations: n.data('citations'), roles: n.data('roles'),
         similarity: n.data('similarity'), x: n.renderedPosition().x, y: n.renderedPosition().y}))"""
        )
    }


def listed(page) -> list[str]:
    return page.eval_on_selector_all("#list li[data-paper]", "items => items.map(i => i.dataset.paper)")


def ego(graph, paper: str) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for row in graph.run("explore/ego", id=paper, limit=15, fanout=100):  # the page asks for 15 of each kind
        kinds.setdefault(row["kind"], set()).add(row["id"])
    return kinds


def click_node(page, key: str) -> None:
    """A real mouse click where cytoscape drew the node."""
    box = page.locator("#graph").bounding_box()
    at = page.evaluate(f"window.explorer.cy.getElementById({key!r}).renderedPosition()")
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])


def overlapping_labels(page) -> list[tuple[str, str]]:
    """Pairs of visible label boxes (as the browser laid them out) that overlap."""
    boxes = page.eval_on_selector_all(
        "#labels .label",
        """labels => labels.map(l => {
        const r = l.getBoundingClientRect(); return [l.textContent, r.left, r.top, r.right, r.bottom]; })""",
    )
    return [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


def selected_in_both(page) -> tuple[list[str], list[str]]:
    return (
        page.evaluate("window.explorer.cy.nodes('.selected').map(n => n.data('pid'))"),
        page.eval_on_selector_all("#list li.selected", "items => items.map(i => i.dataset.paper)"),
    )


def set_years(page, low: int, high: int) -> None:
    """Move the range's two thumbs as a user does: each input fires its event."""
    for thumb, year in (("#year-from", low), ("#year-to", high)):
        page.eval_on_selector(thumb, "(el, y) => { el.value = y; el.dispatchEvent(new Event('input')); }", year)


def open_map(page, paper: str) -> None:
    page.wait_for_function(
        f"window.explorer.state.seeds.join() === {paper!r} && document.querySelectorAll('#list li').length > 0"
    )


def test_a_paper_on_the_map_by_year_and_citations_with_its_roles(page, graph, service):
    page.fill("#q", "selective sharing multilingual")
    page.press("#q", "Enter")
    page.wait_for_selector("#results button[data-paper='P12-1066']")
    page.click("#results button[data-paper='P12-1066']")
    open_map(page, "P12-1066")

    papers = shown(page)
    references = [
        r
        for r in graph.run("recommend/seed", id="P12-1066")[0]["references"]
        if not graph.run("paper", id=r)[0]["external"]
    ]
    assert references and all("reference" in papers[r]["roles"] for r in references)
    recommended = httpx.post(f"{service.url}/recommend", json={"paper": "P12-1066", "k": 15}).json()
    works = httpx.post(f"{service.url}/works", json={"papers": ["P12-1066"], "k": 8}).json()
    assert all(papers[r["id"]]["roles"][0] == "recommended" for r in recommended["recommendations"])
    for kind in ("prior", "derivative"):
        assert works[kind] and all(kind in papers[w["id"]]["roles"] for w in works[kind])
    assert {p for p, v in papers.items() if v["roles"][0] == "derivative"}  # a colour of its own on the map
    assert papers["P12-1066"]["roles"] == ["seed"]
    # x is the year, y the citations (log): an earlier paper is to the left, a more cited one higher.
    for a in papers.values():
        for b in papers.values():
            if a["year"] < b["year"]:
                assert a["x"] < b["x"], (a, b)
            if a["citations"] > b["citations"]:
                assert a["y"] < b["y"], (a, b)
    assert set(listed(page)) == set(papers)  # the side list is the drawing
    assert page.text_content("#details h3") == "Selective Sharing for Multilingual Dependency Parsing"
    assert selected_in_both(page) == (["P12-1066"], ["P12-1066"])

    # Similarity on y: the seed is the highest paper of the map.
    page.select_option("#y-axis", "similarity")
    papers = shown(page)
    assert min(papers.values(), key=lambda p: p["y"])["id"] == "P12-1066"
    assert not overlapping_labels(page)

    # The saved queries run on the selected paper.
    page.click("#saved summary")
    page.select_option("#query-name", "candidate_pool")
    assert page.input_value("#query-params input[name=id]") == "P12-1066"
    page.click("#query-form button")
    page.wait_for_selector("#query-table td")
    types = set(page.eval_on_selector_all("#query-table tr td:first-child", "tds => tds.map(t => t.textContent)"))
    assert "reference" in types and "co_cited" in types


SIZES = {"desktop": (1280, 800), "wide": (1920, 1080), "mobile": (390, 844)}


def test_at_every_size_labels_never_overlap_and_selection_shows_in_both_views(page, service, tmp_path):
    """The map at three window sizes, in both layouts: labels drawn clear of each other, a
    paper clicked in the map is highlighted in the list and the other way round. Screenshots
    go to tmp_path (to $EXPLORER_SCREENSHOTS too, which is how docs/ gets them)."""
    page.goto(f"{service.url}/?paper=P12-1066")
    open_map(page, "P12-1066")
    keep = os.environ.get("EXPLORER_SCREENSHOTS")
    for name, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)  # the resize observer lays the map out again
        for layout in ("map", "force"):
            page.select_option("#layout", layout)
            labels = page.locator("#labels .label").count()
            assert labels >= 8, f"{name} {layout}: only {labels} labels"
            assert not overlapping_labels(page), f"{name} {layout}"
            assert page.is_hidden("#axes") == (layout == "force")
            spread = page.evaluate("""(() => { const b = window.explorer.cy.nodes().renderedBoundingBox();
                const g = document.getElementById('graph'); return [b.w / g.clientWidth, b.h / g.clientHeight]; })()""")
            assert min(spread) > 0.4, f"{name} {layout}: the papers fill {spread} of the drawing"  # not a column
        page.select_option("#layout", "map")
        # Click a derivative work in the drawing: highlighted there and in the list.
        derivative = page.evaluate(f"window.explorer.cy.nodes('.derivative').filter({SHOWN})[0].data('pid')")
        page.evaluate("window.scrollTo(0, 0)")
        click_node(page, f"paper:{derivative}")
        page.wait_for_function(f"window.explorer.state.selected === {derivative!r}")
        assert selected_in_both(page) == ([derivative], [derivative])
        assert page.locator(f"#labels .label.emphasised[data-node='paper:{derivative}']").count() == 1
        assert not overlapping_labels(page)
        # And from the list: a reference.
        reference = page.eval_on_selector("#list ol[data-role=reference] li", "li => li.dataset.paper")
        page.click(f"#list li[data-paper='{reference}'] button")
        page.wait_for_function(f"window.explorer.state.selected === {reference!r}")
        assert selected_in_both(page) == ([reference], [reference])
        page.evaluate("window.scrollTo(0, 0)")
        for folder in filter(None, (tmp_path, keep and Path(keep))):
            page.screenshot(path=folder / f"explorer-{name}.png")
    shot = tmp_path / "explorer-desktop.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_a_library_uploaded_filtered_by_year_and_exported(page, graph, tmp_path):
    page.set_input_files("#library-file", str(DEMO_BIB))
    page.fill("#as-of", "2012-06-30")
    page.click("#library-form button")
    index = PaperIndex.load(graph)
    mine = matched_ids([index.match(e) for e in read_library(DEMO_BIB)])
    open_map(page, ",".join(mine))
    assert page.locator("#matches li").count() == len(read_library(DEMO_BIB))
    assert page.locator("#matches li.unmatched").count() == 1  # the paper ACL-200 does not have
    papers = shown(page)
    assert {p for p, v in papers.items() if v["roles"][0] == "seed"} == set(mine)
    assert all(v["year"] <= 2012 for v in papers.values() if "seed" not in v["roles"])  # as of 2012
    assert "as of 2012-06-30" in page.text_content("#status")
    assert not overlapping_labels(page)
    for folder in filter(None, (tmp_path, os.environ.get("EXPLORER_SCREENSHOTS"))):
        page.screenshot(path=Path(folder) / "explorer-library.png")

    set_years(page, 2005, 2010)
    assert page.text_content("#year-range") == "2005–2010"
    papers = shown(page)
    assert papers and all(2005 <= v["year"] <= 2010 for v in papers.values())
    hidden = page.evaluate(f"window.explorer.cy.nodes().filter(n => !{SHOWN}(n)).map(n => n.data('year'))")
    assert hidden and all(y < 2005 or y > 2010 for y in hidden)
    assert set(listed(page)) == set(papers)  # the list filtered with the drawing
    assert not overlapping_labels(page)

    for button, suffix in (("bibtex", ".bib"), ("ris", ".ris")):
        with page.expect_download() as download:
            page.click(f"#export button[data-format={button}]")
        saved = tmp_path / f"export{suffix}"
        download.value.save_as(saved)
        assert download.value.suggested_filename == f"citegraph{suffix}"
        assert [e.id for e in read_library(saved)] == listed(page)  # the parsers read it back, in list order
    recommended = page.eval_on_selector("#list ol[data-role=recommended] li", "li => li.dataset.paper")
    assert "citegraph: " in saved.read_text() and recommended in saved.read_text()


def test_a_pasted_list_and_the_taxonomy_of_the_selected_paper(page):
    page.fill("#library-text", "X1\nP12-1066\n")
    page.click("#library-form button")
    open_map(page, "X1,P12-1066")
    page.click("#list li[data-paper='X1'] button")
    page.wait_for_function("document.querySelector('#details h3')?.textContent.startsWith('Cross-lingual transfer')")
    neighbours = page.text_content("#neighbours")
    assert "Mathematics" in neighbours and "cs.CL" in neighbours and "I.2.7" in neighbours
    assert {"X2", "X3"} <= set(listed(page))  # citing X1
    assert "Mathematics" in page.text_content("#details .tags")


def test_an_unknown_paper_is_reported_not_drawn(page, service):
    page.goto(f"{service.url}/?paper=nope")
    page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    assert "no paper with id 'nope'" in page.text_content("#status")
    assert drawn(page) == set()


# -- the explorer's own routes (/explore/…), over HTTP --------------------------------------
def test_an_uploaded_library_is_matched_by_the_librarys_parsers(service, graph):
    answer = httpx.post(f"{service.url}/explore/library", json={"name": "library.bib", "text": DEMO_BIB.read_text()})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    index = PaperIndex.load(graph)
    expected = matched_ids([index.match(e) for e in read_library(DEMO_BIB)])
    assert body["papers"] == expected and len(expected) >= 4
    assert any(m["paper"] is None for m in body["matches"])  # the one paper not in ACL-200, named
    assert all(m["entry"].startswith("library.bib:") for m in body["matches"])
    pasted = httpx.post(f"{service.url}/explore/library", json={"text": "P12-1066\n\nD10-1120\nno-such-paper\n"})
    assert pasted.json()["papers"] == ["P12-1066", "D10-1120"]
    assert pasted.json()["matches"][2] == {
        "entry": "pasted.txt:4",
        "paper": None,
        "how": pasted.json()["matches"][2]["how"],
        "title": "",
        "warnings": [],
    }  # the fields of a match on every door (operations.answers.MatchOut)
    blank = httpx.post(f"{service.url}/explore/library", json={"text": " \n\n"})
    assert blank.status_code == 200 and blank.json() == {"papers": [], "matches": []}  # the page says so
    broken = httpx.post(
        f"{service.url}/explore/library", json={"name": "x.bib", "text": "@article{a, title={x}, year={20x1}}"}
    )
    assert broken.status_code == 422 and "x.bib:1" in broken.json()["detail"] and "year" in broken.json()["detail"]


def test_the_map_gives_roles_coordinates_and_citations_among_the_drawn(service, graph):
    answer = httpx.post(f"{service.url}/explore/map", json={"seeds": ["P12-1066"], "prior": ["W06-2920"]})
    assert answer.status_code == 200, answer.text
    papers = {p["id"]: p for p in answer.json()}
    assert papers["P12-1066"]["roles"][0] == "seed"
    assert papers["P12-1066"]["similarity"] == max(p["similarity"] for p in papers.values()) > 0.9
    references = set(graph.run("recommend/seed", id="P12-1066")[0]["references"])
    assert {p for p, v in papers.items() if "reference" in v["roles"]} == references & set(papers)
    assert len(references & set(papers)) == min(len(references), 12)
    assert "prior" in papers["W06-2920"]["roles"]
    assert set(papers["P12-1066"]["cites"]) == references & set(papers)  # the edges among the drawn
    citing = [p for p, v in papers.items() if "citing" in v["roles"]]
    assert citing and all("P12-1066" in papers[p]["cites"] for p in citing)
    assert papers["P12-1066"]["citations"] == graph.run("paper", id="P12-1066")[0]["citation_count"]
    assert all(0 < papers[p]["similarity"] <= 1 for p in references & set(papers))  # linked to the seed
    assert papers["X1"]["author"] == "Ada Lovelace"
    # The similarity is the cosine of a paper's neighbourhood with the seed's and its neighbours (networkx the oracle).
    ids = [row["id"] for row in graph.rows("local/paper_ids")]
    cites = nx.DiGraph((e["citing"], e["cited"]) for e in graph.rows("local/view_edges", ids=ids, held_out=[]))
    around = {"P12-1066", *nx.all_neighbors(cites, "P12-1066")}
    for paper, drawn_paper in papers.items():
        linked = set(nx.all_neighbors(cites, paper)) if paper in cites else set()
        expected = len(linked & around) / math.sqrt(len(linked) * len(around)) if linked else 0.0
        assert drawn_paper["similarity"] == pytest.approx(expected, abs=1e-4), paper
        assert drawn_paper["citations"] == (cites.in_degree(paper) if paper in cites else 0), paper
    assert len({p["similarity"] for p in papers.values()}) > 5  # not one value for all
    # As of 2012, the citing papers of 2013 on are not drawn and their citations are not counted.
    early = {
        p["id"]: p
        for p in httpx.post(f"{service.url}/explore/map", json={"seeds": ["P12-1066"], "as_of": "2012-06-30"}).json()
    }
    assert "X1" not in early and all(p["year"] <= 2012 for p in early.values() if "citing" in p["roles"])
    assert early["P12-1066"]["citations"] < papers["P12-1066"]["citations"]


def test_export_writes_the_list_with_the_recommend_writers(service, tmp_path):
    body = {"papers": ["P12-1066", "D10-1120"], "notes": {"D10-1120": "citegraph: cited by 1 of your papers"}}
    for format_, suffix in (("bibtex", ".bib"), ("ris", ".ris")):
        answer = httpx.post(f"{service.url}/explore/export", json={**body, "format": format_})
        assert answer.status_code == 200, answer.text
        assert f'filename="citegraph{suffix}"' in answer.headers["content-disposition"]
        file = tmp_path / f"list{suffix}"
        file.write_bytes(answer.content)
        assert [e.id for e in read_library(file)] == body["papers"]  # read back by the library's parsers
        assert "cited by 1 of your papers" in answer.text
    assert httpx.post(f"{service.url}/explore/export", json={**body, "format": "docx"}).status_code == 422
