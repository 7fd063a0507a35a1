"""One declaration per request field (issue 40): each use case's request model
(citegraph.operations) is what every door takes — the command line's options are made from its
fields, the HTTP service's OpenAPI schema and the MCP tools' input schemas are its JSON schema —
compared here field by field (name, type, default, bounds, choices); a number out of bounds is
refused on the command line as over HTTP; and `recommend`, `explain`, `works` and `paper` answer
the same on every door on ACL-200 (the ``acl`` fixture: conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field

import click
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from citegraph.cli import main
from citegraph.operations import citing, contextualising, exploring, papers, recommending
from citegraph.operations.fields import TEXT
from citegraph.recommend import Recommender
from citegraph.service.http import create_app
from citegraph.service.mcp import create_server

from conftest import citegraph, citegraph_ok

SEED_FILES = {"papers": "--library FILE", "negatives": "--negative FILE|ID, repeatable"}
A_PAPERS_FIELDS = ("paper", "title", "abstract", "references", "year", "as_of", "field", "category")


@dataclass(frozen=True)
class Doors:
    """Where a request is taken: the command (and the fields it gives another way, with how),
    the HTTP route (method, path), the MCP tool."""

    model: type
    cli: str | None = None
    elsewhere: dict[str, str] = field(default_factory=dict)
    required_on_cli: tuple[str, ...] = ()
    http: tuple[str, str] | None = None
    mcp: str | None = None


USE_CASES = {
    "recommend": Doors(recommending.RecommendRequest, "recommend", SEED_FILES, (), ("post", "/recommend"), "recommend"),
    "watch": Doors(
        recommending.RecommendRequest,
        "watch",
        {**SEED_FILES, **dict.fromkeys(A_PAPERS_FIELDS, "an alert is for a library")},
        ("since",),
    ),
    "explain": Doors(
        recommending.ExplainRequest, "explain", SEED_FILES, (), ("post", "/explain"), "explain_recommendation"
    ),
    "cite": Doors(
        citing.CiteRequest,
        "cite",
        {"draft": "--draft FILE", "bib": "--bib FILE", "format": "the --draft file's suffix"},
        (),
        ("post", "/cite"),
        "cite",
    ),
    "works": Doors(exploring.WorksRequest, "works", {"papers": "--library FILE|ID"}, (), ("post", "/works"), "works"),
    "paper": Doors(papers.PaperRequest, "paper", {}, (), ("get", "/paper/{id}"), "paper"),
    "neighbours": Doors(papers.NeighboursRequest, http=("get", "/neighbours/{id}"), mcp="neighbours"),
    "search": Doors(papers.SearchRequest, http=("get", "/search"), mcp="search_papers"),
    "contextualise": Doors(contextualising.ContextualiseRequest, mcp="contextualise_citation"),
    "library": Doors(exploring.LibraryText, http=("post", "/explore/library")),
    "map": Doors(exploring.MapRequest, http=("post", "/explore/map")),
    "export": Doors(exploring.ExportRequest, http=("post", "/explore/export")),
}
SAID = ("type", "default", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "enum", "pattern")


def said(schema: dict, required: bool) -> dict:
    """What a JSON schema says of one field: its types (null aside), default, bounds, choices,
    pattern, its items' bounds, and whether it is required."""
    options = [schema, *schema.get("anyOf", ())]
    found: dict = {"required": required, "nullable": any(o.get("type") == "null" for o in options)}
    for key in SAID:
        values = [o[key] for o in options if key in o and o.get(key) != "null"]
        if values:
            found[key] = values[0]
    if "items" in schema:
        found["items"] = said(schema["items"], True)
    if found.get("default", 0) is None:  # a null default is said or left unsaid (FastAPI leaves it)
        del found["default"]
    return found


def model_fields(model: type) -> dict[str, dict]:
    schema = model.model_json_schema()
    return {name: said(prop, name in schema.get("required", ())) for name, prop in schema["properties"].items()}


@pytest.fixture(scope="module")
def doors(arcade_server, server_config):
    """The OpenAPI schema and the MCP tools of a service over the session's graph (not queried)."""
    from citegraph.graph import open_store

    with open_store(server_config) as store:
        recommender = Recommender(store)
        spec = create_app(recommender).openapi()
        tools = {t.name: t for t in asyncio.run(create_server(recommender, server_config.data_dir).list_tools())}
        yield spec, tools


@pytest.mark.parametrize("case", [c for c, d in USE_CASES.items() if d.mcp])
def test_each_mcp_tool_takes_its_request_as_its_input_schema(doors, case):
    _, tools = doors
    use = USE_CASES[case]
    assert tools[use.mcp].input_schema == use.model.model_json_schema()


@pytest.mark.parametrize("case", [c for c, d in USE_CASES.items() if d.http])
def test_each_route_declares_its_request_s_fields(doors, case):
    spec, _ = doors
    use = USE_CASES[case]
    assert use.http is not None
    method, path = use.http
    operation = spec["paths"][path][method]
    if method == "post":
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        schema = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
        shown = {name: said(prop, name in schema.get("required", ())) for name, prop in schema["properties"].items()}
    else:
        shown = {p["name"]: said(p["schema"], p["required"]) for p in operation["parameters"]}
    assert shown == model_fields(use.model)


def cli_said(param: click.Parameter) -> dict:
    """What a command-line parameter says of its field, in a JSON schema's words."""
    kind = param.type
    found: dict = {"required": param.required}
    if getattr(param, "multiple", False) or param.nargs == -1:
        found["type"] = "array"
    elif isinstance(param, click.Option) and param.is_flag:
        found["type"] = "boolean"
    elif isinstance(kind, click.IntRange):
        found.update(type="integer", minimum=kind.min, maximum=kind.max)
    elif isinstance(kind, click.Choice):
        found.update(type="string", enum=list(kind.choices))
    else:
        found["type"] = "string"
    default = None if param.required else param.get_default(click.Context(click.Command("x")))
    found["default"] = [] if found["type"] == "array" else default
    return found


def _helps(description: str | None) -> tuple[str | None, ...]:
    """The help an option takes from its field's description (a list's says it repeats)."""
    return (description, f"{description} (repeatable)")


def refuses(param: click.Parameter, value) -> bool:
    try:
        param.type.convert(value, param, click.Context(click.Command("x")))
    except click.BadParameter:
        return True
    return False


@pytest.mark.parametrize("case", [c for c, d in USE_CASES.items() if d.cli])
def test_each_command_makes_its_options_from_its_request_s_fields(case):
    use = USE_CASES[case]
    assert use.cli is not None
    params = {p.name: p for p in main.get_command(click.Context(main), use.cli).params}
    for name, model in model_fields(use.model).items():
        if name in use.elsewhere:
            assert name not in params, (case, name, "given as", use.elsewhere[name])
            continue
        param = params[name]
        shown = cli_said(param)
        expected = {
            "required": model["required"] or name in use.required_on_cli,
            "type": model.get("type"),
            "default": None
            if name in use.required_on_cli
            else model.get("default", [] if model.get("type") == "array" else None),
        }
        expected.update({k: model[k] for k in ("minimum", "maximum", "enum") if k in model})
        assert shown == expected, (case, name)
        assert getattr(param, "help", None) in (None, *_helps(use.model.model_fields[name].description))
        bounds = model.get("items", model)
        if "maxLength" in bounds:  # the field's own check, on each value
            assert refuses(param, "x" * (bounds["maxLength"] + 1)) and not refuses(param, "x" * bounds["maxLength"])
        if bounds.get("pattern") == TEXT:
            assert refuses(param, "   ")
        if "pattern" in bounds and bounds["pattern"] != TEXT:  # a date
            assert refuses(param, "June") and refuses(param, "2013-02-30") and not refuses(param, "2013-02")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["recommend", "--title", "parsing", "-k", "0"],
            "Invalid value for '-k' / '--k': 0 is not in the range 1<=x<=200",
        ),
        (["recommend", "--title", "parsing", "--year", "99999"], "99999 is not in the range 1000<=x<=3000"),
        (["watch", "--library", "{lib}", "--since", "2013", "-k", "201"], "201 is not in the range 1<=x<=200"),
        (["cite", "--context", "parsing [CIT]", "--window", "21"], "21 is not in the range 0<=x<=20"),
        (["recommend", "--title", "   "], "blank: give some text, or leave the field out"),
        (["works", "--library", "{lib}", "--as-of", "2013-02-30"], "February 2013 has no day 30"),
    ],
)
def test_a_value_out_of_bounds_is_refused_on_the_command_line_as_over_http(tmp_path, args, message):
    (tmp_path / "lib.txt").write_text("P12-1066\n")
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    done = citegraph(*(a.format(lib=tmp_path / "lib.txt") for a in args), env=env)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "data").exists()  # refused before any work


# -- the same answer on every door, ACL-200 ---------------------------------------------------------
def _mcp(recommender, folder, tool: str, arguments: dict):
    async def call():
        async with Client(create_server(recommender, folder)) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(call())
    assert not result.is_error, result.content
    content = result.structured_content
    return content["result"] if set(content) == {"result"} else content


def _cli(server_env, *args: str):
    return json.loads(citegraph_ok(*args, "--format", "json", env=server_env).stdout)


def test_recommend_explain_works_and_paper_answer_the_same_on_every_door(acl, server_env, tmp_path):
    http = TestClient(create_app(acl), base_url="http://127.0.0.1")

    def post(path: str, body: dict) -> dict:
        answer = http.post(path, json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    asked = {"paper": "P12-1066", "references": ["NOPE-1"], "negatives": ["D10-1120"], "as_of": "2012", "k": 5}
    flags = ("--paper", "P12-1066", "--reference", "NOPE-1", "--negative", "D10-1120", "--as-of", "2012", "-k", "5")
    answers = [
        post("/recommend", asked),
        _mcp(acl, tmp_path, "recommend", asked),
        _cli(server_env, "recommend", *flags),
    ]
    assert answers[0] == answers[1] == answers[2]
    found = answers[0]
    assert set(found) == {"seed", "recommendations", "matches", "negatives", "ignored_references", "why", "warnings"}
    assert found["why"] == [] and found["warnings"] == []  # none asked about; as of 2012: 14,158 citations
    assert found["ignored_references"] == ["NOPE-1"] and [m["paper"] for m in found["negatives"]] == ["D10-1120"]
    assert [r["id"] for r in found["recommendations"]] == [
        r.id for r in acl.recommend("P12-1066", k=5, references=["NOPE-1"], view=_view(2012, ["D10-1120"]))
    ]
    assert all(r["explanation"] and r["signals"] for r in found["recommendations"])  # one default: with reasons

    top = found["recommendations"][0]["id"]
    why = {**{k: v for k, v in asked.items() if k != "k"}, "candidate": top}  # the same seed
    explained = [
        post("/explain", why),
        _mcp(acl, tmp_path, "explain_recommendation", why),
        _cli(server_env, "explain", *flags[:-2], "--candidate", top),
    ]
    assert explained[0] == explained[1] == explained[2]
    assert explained[0]["rank"] == 1 and explained[0]["candidate_found"] is True
    assert explained[0]["explanation"] == found["recommendations"][0]["explanation"]
    not_here = post("/explain", {**why, "candidate": "P12-1066"})  # the seed itself is never a candidate
    assert not_here["candidate_found"] is False and "not a candidate" in not_here["why_not"]

    works = {"papers": ["P12-1066", "N12-1052"], "as_of": "2012", "k": 5}
    listed = [
        post("/works", works),
        _mcp(acl, tmp_path, "works", works),
        _cli(server_env, "works", "--library", "P12-1066", "--library", "N12-1052", "--as-of", "2012", "-k", "5"),
    ]
    assert listed[0] == listed[1] == listed[2] and len(listed[0]["prior"]) == 5

    record = http.get("/paper/P12-1066").json()
    assert record == _mcp(acl, tmp_path, "paper", {"id": "P12-1066"}) == _cli(server_env, "paper", "P12-1066")
    assert record["url"] == "https://aclanthology.org/P12-1066"


def test_a_library_file_on_the_command_line_answers_as_its_ids_over_http(acl, server_env, tmp_path):
    """The command line reads --library FILE itself and hands the entries over: the same
    recommendations as the ids sent, each entry named where it is in the file."""
    ids = ["10.18653/v1/D15-1039", "P12-1066", "N12-1052", "nope"]
    (tmp_path / "lib.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    sent = TestClient(create_app(acl), base_url="http://127.0.0.1").post("/recommend", json={"papers": ids, "k": 5})
    read = _cli(server_env, "recommend", "--library", str(tmp_path / "lib.txt"), "-k", "5")
    assert read["recommendations"] == sent.json()["recommendations"] and read["seed"] == sent.json()["seed"]
    assert [(m["paper"], m["how"]) for m in read["matches"]] == [(m["paper"], m["how"]) for m in sent.json()["matches"]]
    assert [m["entry"] for m in read["matches"]] == [f"{tmp_path / 'lib.txt'}:{n}" for n in range(1, 5)]
    assert [m["entry"] for m in sent.json()["matches"]] == ids


def _view(as_of: int, negatives: list[str]):
    from citegraph.recommend import View

    return View(as_of=as_of, negatives=tuple(negatives))


# -- why (issue 41): what became of a paper, on every door, from explain's code path ----------------
def test_why_names_each_paper_s_stage_the_same_on_every_door(acl, server_env, tmp_path):
    """`recommend --why`, POST /recommend's ``why`` and the MCP tool's: each paper's rank, or the
    stage that dropped it — a candidate below k, a reference the seed already cites, a paper
    newer than the as-of date, a paper nothing found, a paper co-cited with the references but
    past the graph side's top 100 co-cited — the same answer, explain's for each."""
    from citegraph.recommend import View

    http = TestClient(create_app(acl), base_url="http://127.0.0.1")
    below = acl.recommend("P12-1066", k=8, view=View(as_of=2011))[7].id  # rank 8: below k = 5
    asked_about = [below, "D11-1006", "N12-1052", "A00-1026", "P05-1077"]
    asked = {"paper": "P12-1066", "as_of": "2011", "k": 5, "why": asked_about}
    flags = ["--paper", "P12-1066", "--as-of", "2011", "-k", "5"]
    answers = [
        http.post("/recommend", json=asked).json(),
        _mcp(acl, tmp_path, "recommend", asked),
        _cli(server_env, "recommend", *flags, *(f for pid in asked_about for f in ("--why", pid))),
    ]
    assert answers[0] == answers[1] == answers[2]
    why = answers[0]["why"]
    assert [w["candidate"] for w in why] == asked_about
    assert [w["stage"] for w in why] == ["below k", "blocked", "blocked", "not retrieved", "not enriched"]
    assert why[0]["rank"] == 8 and why[0]["of"] > 8 and why[0]["features"] and why[0]["explanation"]
    assert why[0]["why_not"] == f"rank 8 of {why[0]['of']}, below k = 5"
    assert why[1]["why_not"] == "not a candidate — blocked: already cited (one of your references)"
    assert why[2]["why_not"] == "not a candidate — blocked: newer (2012) than the as-of date (2011)"
    assert why[3]["why_not"].startswith("not a candidate — not retrieved: not among the top 100 text matches")
    assert why[4]["why_not"] == (
        "not a candidate — not enriched: linked to your references in the graph (co-cited with them 1 time) "
        "but not among the top 100 of its kind, nor among the text matches"
    )
    assert [w["title"] for w in why[1:]] == [
        "Multi-Source Transfer of Delexicalized Dependency Parsers",
        "Cross-lingual Word Clusters for Direct Transfer of Linguistic Structure",
        "Extracting Molecular Binding Relationships from Biomedical Text",
        "Randomized Algorithms and NLP: Using Locality Sensitive Hash Functions for High Speed Noun Clustering",
    ]
    assert answers[0]["recommendations"] == http.post("/recommend", json={**asked, "why": []}).json()["recommendations"]
    unknown = http.post("/recommend", json={**asked, "why": ["NOPE-1"]})
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "why: no paper with id 'NOPE-1' in the graph"})
    seed = {name: value for name, value in asked.items() if name != "why"}
    for each in why:  # explain is recommend's why for one paper
        explained = http.post("/explain", json={**seed, "candidate": each["candidate"]}).json()
        assert {name: explained[name] for name in each} == each
    shown = citegraph_ok("recommend", *flags, "--why", below, "--why", "N12-1052", env=server_env).stdout
    assert f"{below} " in shown and ": rank 8 of " in shown and "· below k" in shown
    assert "N12-1052 Cross-lingual Word Clusters for Direct Transfer of Linguistic Structure: not a candidate" in shown


def test_a_thin_as_of_view_is_one_warning_line(acl, server_env):
    """ACL-200's citing papers are of 2009-2015: as of 2008 the view holds no citation (a
    warning, in the answer and on stderr), as of 2009 its 3,049 (none); cite warns alike."""
    from citegraph.operations.recommending import THIN_VIEW

    said = f"as of 2008 the graph holds 0 citations (fewer than {THIN_VIEW:,}): the graph signals have almost"
    context = "Dependency parsing across languages [CIT]."
    http = TestClient(create_app(acl), base_url="http://127.0.0.1")
    warned_of = {}
    for year, warned in (("2008", True), ("2009", False)):
        done = citegraph_ok(
            "recommend", "--paper", "P12-1066", "--as-of", year, "-k", "3", "--format", "json", env=server_env
        )
        warnings = warned_of[year] = json.loads(done.stdout)["warnings"]
        assert [w.startswith(said) for w in warnings] == ([True] if warned else [])
        assert [line for line in done.stderr.splitlines() if line.startswith("warning: ")] == [
            f"warning: {w}" for w in warnings
        ]
        cited = http.post("/cite", json={"context": context, "as_of": year}).json()
        assert [w for w in cited["warnings"] if w.startswith("as of")] == warnings
    cited = citegraph_ok("cite", "--context", context, "--as-of", "2008", env=server_env).stderr
    assert [line for line in cited.splitlines() if line.startswith("warning: as of")] == [
        f"warning: {w}" for w in warned_of["2008"]
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["recommend", "--paper", "P12-1066", "--why", "NOPE-1"], "why: no paper with id 'NOPE-1' in the graph"),
        (["cite", "--context", "Parsing [CIT].", "--why", "NOPE-1"], "why: no paper with id 'NOPE-1' in the graph"),
        (
            ["explain", "--paper", "P12-1066", "--candidate", "NOPE-1"],
            "candidate: no paper with id 'NOPE-1' in the graph",
        ),
        (["recommend", "--paper", "P12-1066", "--why", ""], "Invalid value for '--why': String should have at least 1"),
    ],
)
def test_an_unknown_why_is_one_line_and_exit_2(acl, server_env, args, message):
    done = citegraph(*args, env=server_env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"Error: {message}"), done.stderr
    assert "Traceback" not in done.stderr
