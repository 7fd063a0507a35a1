"""The graph explorer page in a real headless Chromium (Playwright), against `citegraph
serve` on the ACL-200 graph: search a paper, open it, click a node of the drawn graph and
see that paper's neighbours appear, ask for recommendations, run a saved query.

Needs Playwright (the [dev] extra) and a Chromium: Debian's (`apt-get install chromium`,
/usr/bin/chromium) or one that `playwright install chromium` downloaded. Skipped, saying
which is missing, otherwise.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from http_service import acl_service

from citegraph.graph import open_store
from citegraph.library.entries import read_library
from citegraph.library.match import PaperIndex, matched_ids

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the [dev] extra)")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # a closed network: nothing phones home


@pytest.fixture(scope="module")
def browser():
    system = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    with sync_api.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=system, args=FLAGS)
        except sync_api.Error as exc:
            pytest.skip(f"no Chromium to drive: install Debian's (apt-get install chromium) or run "
                        f"`playwright install chromium` ({str(exc).splitlines()[0]})")
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
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error"
              and "status of 404" not in message.text else None)  # a 404 is an answer the page shows
    opened.goto(service.url)
    opened.wait_for_function("document.querySelectorAll('#query-name option').length > 0")
    yield opened
    context.close()
    assert not errors, errors


def drawn(page) -> set[str]:
    return set(page.evaluate("window.explorer.cy.nodes().map(n => n.id())"))


def ego(graph, paper: str) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for row in graph.run("explore/ego", id=paper, limit=15):  # the page asks for 15 of each kind
        kinds.setdefault(row["kind"], set()).add(row["id"])
    return kinds


def click_node(page, key: str) -> None:
    """A real mouse click where cytoscape drew the node."""
    box = page.locator("#graph").bounding_box()
    at = page.evaluate(f"window.explorer.cy.getElementById({key!r}).renderedPosition()")
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])


def test_search_open_click_expand_recommend_and_query(page, graph, tmp_path):
    page.fill("#q", "selective sharing multilingual")
    page.press("#q", "Enter")
    page.wait_for_selector("#results button[data-paper='P12-1066']")
    page.click("#results button[data-paper='P12-1066']")
    page.wait_for_function("window.explorer.state.focus === 'P12-1066'")

    references = set(graph.run("recommend/seed", id="P12-1066")[0]["references"])
    assert {f"paper:{r}" for r in references} <= drawn(page)  # 7 references, all drawn
    listed = page.eval_on_selector_all("#neighbours ol[data-kind=cites] button", "bs => bs.map(b => b.dataset.paper)")
    assert set(listed) == references
    expected = ego(graph, "P12-1066")
    assert {f"paper:{p}" for k in ("cites", "cited_by", "co_cited") for p in expected[k]} <= drawn(page)
    assert page.text_content("#details h3") == "Selective Sharing for Multilingual Dependency Parsing"

    # Click D10-1120 in the drawing: its own neighbours appear, P12-1066's stay.
    before = drawn(page)
    click_node(page, "paper:D10-1120")
    page.wait_for_function("window.explorer.state.focus === 'D10-1120'")
    around = ego(graph, "D10-1120")
    new = {f"paper:{p}" for k in ("cites", "cited_by", "co_cited") for p in around[k]}
    assert new - before, "expanding D10-1120 draws papers that were not there"
    assert new | before <= drawn(page)
    assert page.eval_on_selector("#graph", "g => g.querySelector('canvas') !== null")
    edges = set(page.evaluate("window.explorer.cy.edges().map(e => e.id())"))
    assert {f"cites:paper:D10-1120->paper:{p}" for p in around["cites"]} <= edges

    page.click("#recommend")
    page.wait_for_selector("#recommendations > li")
    items = page.locator("#recommendations > li")
    assert items.count() == 10
    assert page.locator("#recommendations .why li").count() >= 10  # every one with its reasons
    assert page.evaluate("window.explorer.cy.nodes('.recommended').length") >= 10

    page.select_option("#query-name", "candidate_pool")
    assert page.input_value("#query-params input[name=id]") == "D10-1120"  # the open paper
    page.click("#query-form button")
    page.wait_for_selector("#query-table td")
    types = set(page.eval_on_selector_all("#query-table tr td:first-child", "tds => tds.map(t => t.textContent)"))
    assert "reference" in types and "co_cited" in types

    shot = tmp_path / "explorer.png"
    page.screenshot(path=shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_fields_categories_and_acm_concepts_are_drawn(page, service, graph, tmp_path):
    page.goto(f"{service.url}/?paper=X1")
    page.wait_for_function("window.explorer.state.focus === 'X1'")
    nodes = drawn(page)
    kinds = ego(graph, "X1")
    assert {f"field:{f}" for f in kinds["field"]} | {f"category:{c}" for c in kinds["category"]} <= nodes
    assert {f"acm:{a}" for a in kinds["acm"]} <= nodes and "acm:I.2.7" in nodes
    assert {"paper:X2", "paper:X3"} <= nodes  # cited by
    assert "Mathematics" in page.text_content("#details .tags")
    page.screenshot(path=tmp_path / "explorer-taxonomy.png")


def test_an_unknown_paper_is_reported_not_drawn(page, service):
    page.goto(f"{service.url}/?paper=nope")
    page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    assert "no paper with id 'nope'" in page.text_content("#status")
    assert drawn(page) == set()


# -- the explorer's own routes (/explore/…), over HTTP --------------------------------------
DEMO_BIB = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "demo" / "library.bib"


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
    broken = httpx.post(f"{service.url}/explore/library", json={"name": "x.bib", "text": "@article{a, title={x},"
                                                                                         " year={20x1}}"})
    assert broken.status_code == 422 and "x.bib:1" in broken.json()["detail"] and "year" in broken.json()["detail"]


def test_the_map_gives_roles_coordinates_and_citations_among_the_drawn(service, graph):
    answer = httpx.post(f"{service.url}/explore/map", json={"seeds": ["P12-1066"], "roles": {"prior": ["W06-2920"]}})
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
    # As of 2012, the citing papers of 2013 on are not drawn and their citations are not counted.
    early = {p["id"]: p for p in httpx.post(f"{service.url}/explore/map", json={"seeds": ["P12-1066"],
                                                                               "as_of": "2012-06-30"}).json()}
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

