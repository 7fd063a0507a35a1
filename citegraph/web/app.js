// The citegraph explorer: start from a paper (search) or a library (pasted ids/DOIs, an
// uploaded .bib/.ris/CSL-JSON: POST /explore/library), and see its papers on a map by year
// (map.js): the seeds, their references and citing papers, the recommendations with their
// reasons (POST /recommend), the prior and derivative works (POST /works). The side list and
// the drawing select together; a year range filters both; the list exports as BibTeX or RIS
// (POST /explore/export). The saved exploration queries run below (GET /queries).
// Plain browser JavaScript over the JSON API; cytoscape.js is vendored under /static/vendor.
"use strict";

const { ROLE_COLOURS, ROLE_NAMES, mapPositions, drawAxes, placeLabels } = window.citegraphMap;
const KIND_TITLES = { cites: "Cites", cited_by: "Cited by", co_cited: "Co-cited with",
                      field: "Fields", category: "arXiv categories", acm: "ACM concepts" };
const RECOMMEND = 15;  // recommendations drawn
const WORKS = 8;  // prior and derivative works drawn

const $ = (id) => document.getElementById(id);
const state = { seeds: [], focus: null, selected: null, hover: null, years: [0, 0], why: new Map(), score: new Map() };

const cy = cytoscape({
  container: $("graph"),
  minZoom: 0.2, maxZoom: 4,
  style: [
    { selector: "node", style: { "width": "data(size)", "height": "data(size)", "background-color": "data(colour)",
      "border-width": 1, "border-color": "#fff", "label": "" } },
    { selector: "node.selected", style: { "border-width": 4, "border-color": "#111", "underlay-color": "#ffd24d",
      "underlay-padding": 6, "underlay-opacity": 0.9, "underlay-shape": "ellipse", "z-index": 20 } },
    { selector: "node.faded", style: { "opacity": 0.3 } },
    { selector: "node.filtered, edge.filtered", style: { "display": "none" } },
    { selector: "edge", style: { "width": 1, "line-color": "#c3cad6", "opacity": 0.35, "curve-style": "straight",
      "target-arrow-shape": "triangle", "target-arrow-color": "#c3cad6", "arrow-scale": 0.6 } },
    { selector: "edge.lit", style: { "opacity": 0.95, "line-color": "#444", "target-arrow-color": "#444", "width": 1.5,
      "z-index": 10 } },
    { selector: "edge.faded", style: { "opacity": 0.08 } },
  ],
});

async function api(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" },
                                              body: JSON.stringify(body) };
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.detail || `${response.status} ${response.statusText}`);
  return data;
}

function status(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function paperLink(id, title, year) {
  const button = el("button", `${title || id}${year ? ` (${year})` : ""}`, "link");
  button.dataset.paper = id;
  button.title = id;
  button.addEventListener("click", () => (cy.getElementById(`paper:${id}`).nonempty() ? select(id) : openPaper(id)));
  return button;
}

function asOf() {
  return $("as-of").value.trim() || undefined;
}

// -- search ---------------------------------------------------------------------------
async function search(q) {
  status(`searching “${q}”…`);
  try {
    const hits = await api(`/search?q=${encodeURIComponent(q)}&limit=20`);
    const list = $("results");
    list.replaceChildren(...hits.map((h) => {
      const item = el("li");
      item.append(paperLink(h.id, h.title, h.year), el("span", ` · ${h.citations ?? 0} citations`, "muted"));
      return item;
    }));
    status(hits.length ? `${hits.length} papers found` : `no paper matches “${q}”`);
    if (hits.length === 1) await openPaper(hits[0].id);
  } catch (error) {
    status(error.message, true);
  }
}

// -- a seed set: roles from the API, drawn on the map -----------------------------------
async function openPaper(id) {
  return openSeeds([id], { paper: id });
}

async function openLibrary(text, name) {
  status(`matching ${name}…`);
  try {
    const found = await api("/explore/library", { text, name });
    $("matches").replaceChildren(...found.matches.map((m) => {
      const item = el("li", `${m.entry} → ${m.paper ?? "not in the graph"} (${m.how})`, m.paper ? "" : "unmatched");
      return item;
    }));
    if (!found.papers.length) throw new Error(`no entry of ${name} is in the graph`);
    await openSeeds(found.papers, { papers: found.papers });
  } catch (error) {
    status(error.message, true);
  }
}

// growing (`citegraph serve --grow`): the library's works, references and citing works fetched
// from OpenAlex (POST /explore/grow, as `citegraph grow --cited-by` does), then mapped
async function growLibrary(text, name) {
  status(`growing the graph from ${name} with OpenAlex (this asks the APIs at their rates)…`);
  try {
    const grown = await api("/explore/grow", { text, name, cited_by: true });
    const asked = Object.values(grown.requests).reduce((a, b) => a + b, 0);
    status(`${grown.works} works written (${grown.nodes_created} new nodes, ${asked} requests, ${grown.cached} from the cache)`);
  } catch (error) {
    status(error.message, true);
    return;
  }
  await openLibrary(text, name);
}

async function offersGrowing() {
  const spec = await api("/openapi.json").catch(() => ({ paths: {} }));
  $("grow-library").hidden = !("/explore/grow" in spec.paths);
}

async function openSeeds(ids, ask) {
  status(`mapping ${ids.length === 1 ? ids[0] : `${ids.length} papers`}…`);
  const as_of = asOf();
  let found;
  try {
    const answers = await Promise.allSettled([api("/recommend", { ...ask, k: RECOMMEND, explain: true, as_of }),
                                              api("/works", { papers: ids, k: WORKS, as_of })]);
    const failed = answers.find((a) => a.status === "rejected");  // the recommender's reason first
    if (failed) throw failed.reason;
    const [recommended, works] = answers.map((a) => a.value);
    state.why = new Map();
    state.score = new Map();
    for (const r of recommended.recommendations) {
      state.why.set(r.id, r.explanation);
      state.score.set(r.id, r.score);
    }
    const because = (id, line) => state.why.set(id, [...(state.why.get(id) ?? []), line]);
    for (const w of works.prior) because(w.id, `prior work: cited by ${w.links} papers around the seeds`);
    for (const w of works.derivative) because(w.id, `derivative work: cites ${w.links} papers around the seeds`);
    found = await api("/explore/map", { seeds: ids, recommended: recommended.recommendations.map((r) => r.id),
                                        prior: works.prior.map((w) => w.id),
                                        derivative: works.derivative.map((w) => w.id), as_of });
  } catch (error) {
    status(error.message, true);
    return;
  }
  state.seeds = ids;
  state.focus = ids.length === 1 ? ids[0] : null;
  draw(found);
  fillQueryParams();
  const counts = Object.keys(ROLE_NAMES).map((r) => [r, found.filter((p) => p.roles[0] === r).length]);
  status(`${found.length} papers: ${counts.filter(([, c]) => c).map(([r, c]) => `${c} ${ROLE_NAMES[r].toLowerCase()}`)
    .join(", ")}${as_of ? ` · as of ${as_of}` : ""}`);
  await select(ids[0]);
}

function draw(papers) {
  cy.elements().remove();
  const most = Math.max(1, ...papers.map((p) => p.citations));
  cy.add(papers.map((p) => ({ group: "nodes", data: {
    id: `paper:${p.id}`, pid: p.id, title: p.title, year: p.year, author: p.author, citations: p.citations,
    similarity: p.similarity, roles: p.roles, role: p.roles[0], colour: ROLE_COLOURS[p.roles[0]],
    size: 8 + 20 * Math.sqrt(p.citations / most) }, classes: `paper ${p.roles[0]}` })));
  for (const p of papers) {
    for (const q of p.cites) {
      cy.add({ group: "edges", data: { id: `cites:paper:${p.id}->paper:${q}`, source: `paper:${p.id}`,
                                       target: `paper:${q}` } });
    }
  }
  const years = papers.map((p) => p.year).filter((y) => y !== null);
  state.years = years.length ? [Math.min(...years), Math.max(...years)] : [2000, 2000];
  for (const [input, value] of [[$("year-from"), state.years[0]], [$("year-to"), state.years[1]]]) {
    input.min = state.years[0];
    input.max = state.years[1];
    input.value = value;
  }
  filter();
}

// The year range hides papers outside it, in the drawing and in the list.
function range() {
  const a = Number($("year-from").value);
  const b = Number($("year-to").value);
  return [Math.min(a, b), Math.max(a, b)];
}

function filter() {
  const [from, to] = range();
  $("year-range").textContent = `${from}–${to}`;
  cy.batch(() => {
    cy.nodes().forEach((n) => {
      const year = n.data("year");
      n.toggleClass("filtered", year !== null && (year < from || year > to));
    });
    cy.edges().forEach((e) => e.toggleClass("filtered", e.source().hasClass("filtered")
                                                         || e.target().hasClass("filtered")));
  });
  if (state.selected && cy.getElementById(`paper:${state.selected}`).hasClass("filtered")) state.selected = null;
  renderList();
  layout();
}

function visible() {
  return cy.nodes().filter((n) => !n.hasClass("filtered"));
}

function layout() {
  const container = $("graph");
  const width = container.clientWidth;
  const height = container.clientHeight;
  const map = $("layout").value === "map";
  $("axes").style.display = map ? "" : "none";  // an <svg> has no hidden property
  cy.userPanningEnabled(!map);
  cy.userZoomingEnabled(!map);
  if (!cy.nodes().length) return labels();
  if (map) {
    const axis = $("y-axis").value;
    const { positions, scale } = mapPositions(visible(), width, height, range(), axis);
    cy.layout({ name: "preset", positions: (n) => positions[n.id()], fit: false, zoom: 1, pan: { x: 0, y: 0 },
                animate: false }).run();
    drawAxes($("axes"), width, height, range(), axis, scale);
  } else {
    cy.elements().not(".filtered").layout({ name: "cose", animate: false, randomize: false, nodeRepulsion: () => 12000,
                       idealEdgeLength: () => 80, numIter: 1500, fit: true, padding: 40 }).run();
  }
  labels();
}

function shortLabel(n, long) {
  const d = n.data();
  const short = `${d.author ? d.author.split(/\s+/).pop() : words(d.title || d.pid, 22)} ${d.year ?? ""}`.trim();
  if (!long || !d.title) return short;
  return d.author ? `${short} — ${words(d.title, 50)}` : `${words(d.title, 60)} ${d.year ?? ""}`.trim();
}

function words(text, most) {  // the first words of a title, cut at a word, not inside one
  if (text.length <= most) return text;
  const cut = text.slice(0, most + 1).replace(/[\s,:;.-]+\S*$/, "");
  return `${cut || text.slice(0, most)}…`;
}

const ORDER = Object.keys(ROLE_NAMES);

function labels() {
  const emphasised = new Set([state.selected, state.hover].filter(Boolean).map((p) => `paper:${p}`));
  const ordered = visible().sort((a, b) => (emphasised.has(b.id()) - emphasised.has(a.id()))
    || (ORDER.indexOf(a.data("role")) - ORDER.indexOf(b.data("role"))) || (b.data("citations") - a.data("citations"))
    || a.id().localeCompare(b.id()));
  const axis = $("layout").value === "map" ? window.citegraphMap.MARGIN.bottom - 4 : 0;
  placeLabels(cy, $("labels"), ordered.toArray(), shortLabel, emphasised, axis);
}

// -- the side list, selected together with the drawing -----------------------------------
function sortedVisible() {
  return visible().toArray().sort((a, b) => (ORDER.indexOf(a.data("role")) - ORDER.indexOf(b.data("role")))
    || ((state.score.get(b.data("pid")) ?? 0) - (state.score.get(a.data("pid")) ?? 0))
    || (b.data("citations") - a.data("citations")) || a.id().localeCompare(b.id()));
}

function renderList() {
  const box = $("list");
  box.replaceChildren();
  const shown = sortedVisible();
  $("count").textContent = cy.nodes().length ? `(${shown.length} of ${cy.nodes().length})` : "";
  $("export").hidden = !shown.length;
  for (const role of ORDER) {
    const of = shown.filter((n) => n.data("role") === role);
    if (!of.length) continue;
    const heading = el("div", `${ROLE_NAMES[role]} (${of.length})`, `kind role-${role}`);
    const list = el("ol");
    list.dataset.role = role;
    for (const n of of) {
      const d = n.data();
      const item = el("li");
      item.dataset.paper = d.pid;
      item.classList.toggle("selected", d.pid === state.selected);
      item.append(paperLink(d.pid, d.title, d.year), el("span", ` · cited ${d.citations}×`, "muted"));
      const why = state.why.get(d.pid);
      if (why?.length) {
        const reasons = el("ul", null, "why");
        for (const line of why) reasons.append(el("li", line));
        item.append(reasons);
      }
      list.append(item);
    }
    box.append(heading, list);
  }
}

async function select(id, fromGraph = false) {
  state.selected = id;
  const node = cy.getElementById(`paper:${id}`);
  cy.batch(() => {
    cy.elements().removeClass("selected lit faded");
    if (node.nonempty()) {
      node.addClass("selected");
      const near = node.closedNeighborhood();
      near.edges().addClass("lit");
      cy.elements().difference(near).difference(cy.nodes(".seed")).addClass("faded");  // the seeds stay in view
    }
  });
  for (const item of $("list").querySelectorAll("li[data-paper]")) {
    const on = item.dataset.paper === id;
    item.classList.toggle("selected", on);
    if (on && fromGraph) item.scrollIntoView({ block: "nearest" });
  }
  labels();
  try {
    const data = await api(`/neighbours/${encodeURIComponent(id)}?limit=15`);
    if (state.selected !== id) return;
    showDetails(data.paper, node.data("roles") ?? []);
    showNeighbours(data.neighbours);
  } catch (error) {
    status(error.message, true);
  }
}

function showDetails(p, roles) {
  const box = $("details");
  const tags = el("div", null, "tags");
  for (const t of [...p.fields, ...p.categories]) tags.append(el("span", t));
  const open = el("button", "Map this paper");
  open.id = "map-paper";
  open.hidden = state.focus === p.id;
  open.addEventListener("click", () => openPaper(p.id));
  box.replaceChildren(
    el("h3", p.title || p.id),
    el("p", [p.id, p.year, p.venue, roles.map((r) => ROLE_NAMES[r].toLowerCase()).join(", ")].filter(Boolean)
      .join(" · "), "muted"),
    el("p", p.authors.length ? p.authors.join(", ") : ""),
    el("p", `${p.references} references · cited ${p.citation_count ?? 0} times${p.external ? " · external stub" : ""}`),
    tags, open,
  );
  if (p.abstract) box.append(el("p", p.abstract.length > 600 ? `${p.abstract.slice(0, 600)}…` : p.abstract));
}

function showNeighbours(neighbours) {
  const box = $("neighbours");
  box.replaceChildren();
  for (const kind of Object.keys(KIND_TITLES)) {
    const of = neighbours.filter((n) => n.kind === kind);
    if (!of.length) continue;
    box.append(el("div", `${KIND_TITLES[kind]} (${of.length})`, "kind"));
    const list = el("ol");
    list.dataset.kind = kind;
    for (const n of of) {
      const item = el("li");
      if (["cites", "cited_by", "co_cited"].includes(kind)) {
        item.append(paperLink(n.id, n.title, n.year));
        if (kind === "co_cited") item.append(el("span", ` · ${n.weight}×`, "muted"));
      } else {
        item.textContent = kind === "acm" ? `${n.id} ${n.title || ""} (from ${n.via})` : `${n.id}${
          n.title && n.title !== n.id ? ` — ${n.title}` : ""}`;
      }
      list.append(item);
    }
    box.append(list);
  }
}

// -- export: the list as it is shown, with each paper's reasons as its note ----------------
async function exportList(format) {
  const papers = sortedVisible().map((n) => n.data("pid"));
  const notes = Object.fromEntries(papers.filter((p) => state.why.has(p))
    .map((p) => [p, `citegraph: ${state.why.get(p).join("; ")}`]));
  try {
    const response = await fetch("/explore/export", { method: "POST", headers: { "content-type": "application/json" },
                                                      body: JSON.stringify({ papers, notes, format }) });
    if (!response.ok) throw new Error((await response.json()).detail);
    const link = el("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = format === "ris" ? "citegraph.ris" : "citegraph.bib";
    link.click();
    URL.revokeObjectURL(link.href);
    status(`${papers.length} papers exported as ${format === "ris" ? "RIS" : "BibTeX"}`);
  } catch (error) {
    status(error.message, true);
  }
}

// -- saved queries ----------------------------------------------------------------------
let savedQueries = [];

async function loadQueries() {
  try {
    savedQueries = await api("/queries");
  } catch (error) {
    status(error.message, true);
    return;
  }
  $("query-name").replaceChildren(...savedQueries.map((q) => {
    const option = el("option", q.name.replaceAll("_", " "));
    option.value = q.name;
    return option;
  }));
  showQuery();
}

function currentQuery() {
  return savedQueries.find((q) => q.name === $("query-name").value);
}

function example(doc) {
  const match = /e\.g\. '?([^',)\s]+)'?/.exec(doc || "");
  return match ? match[1] : "";
}

function showQuery() {
  const query = currentQuery();
  if (!query) return;
  $("query-doc").textContent = query.doc.split("\n").filter((line) => !line.startsWith("$")).join("\n");
  $("query-params").replaceChildren(...query.parameters.map((p) => {
    const label = el("label", `${p.name} (${p.type})`);
    const input = el("input");
    input.name = p.name;
    input.dataset.type = p.type;
    input.title = p.doc;
    input.value = example(p.doc);
    label.append(input);
    return label;
  }));
  fillQueryParams();
}

function fillQueryParams() {
  const input = $("query-params").querySelector("input[name=id]");
  if (input && (state.selected || state.focus)) input.value = state.selected || state.focus;
}

function typed(input) {
  const text = input.value.trim();
  if (input.dataset.type === "string" || input.dataset.type === "id") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;  // the service names the parameter and the type it expects
  }
}

async function runQuery() {
  const query = currentQuery();
  if (!query) return;
  const params = {};
  for (const input of $("query-params").querySelectorAll("input")) params[input.name] = typed(input);
  status(`running ${query.name}…`);
  try {
    const result = await api(`/queries/${query.name}`, params);
    showTable(result);
    status(`${query.name}: ${result.rows.length} rows${result.truncated ? " (truncated)" : ""}`);
  } catch (error) {
    status(error.message, true);
  }
}

function cell(value) {
  // Nodes arrive as property maps, relationships as [start, type, end], paths as alternating lists.
  if (value === null || value === undefined) return el("span", "");
  if (Array.isArray(value)) {
    const span = el("span");
    let joined = true;
    for (const v of value) {
      if (typeof v === "string" && /^[A-Z][A-Z_]*$/.test(v)) {  // a relationship type inside a path
        span.append(` –${v}– `);
        joined = true;
        continue;
      }
      if (!joined) span.append(", ");
      span.append(cell(v));
      joined = false;
    }
    return span;
  }
  if (typeof value === "object") {
    if (value.id !== undefined) return paperLink(value.id, value.title, value.year);
    if (value.code !== undefined) return el("span", `${value.code} ${value.label ?? value.name ?? ""}`.trim());
    return el("span", value.name ?? JSON.stringify(value));
  }
  return el("span", String(value));
}

function showTable(result) {
  $("query-result").hidden = false;
  $("query-title").textContent = `${result.name}: ${result.rows.length} rows`;
  const head = el("tr");
  for (const column of result.columns) head.append(el("th", column));
  const rows = result.rows.map((row) => {
    const tr = el("tr");
    for (const column of result.columns) {
      const td = el("td");
      td.append(column === "id" && typeof row[column] === "string" ? paperLink(row[column], row[column]) : cell(row[column]));
      tr.append(td);
    }
    return tr;
  });
  $("query-table").replaceChildren(head, ...rows);
}

// -- wiring -----------------------------------------------------------------------------
$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const q = $("q").value.trim();
  if (q) search(q);
});
$("library-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const open = event.submitter?.id === "grow-library" ? growLibrary : openLibrary;
  const file = $("library-file").files[0];
  if (file) await open(await file.text(), file.name);
  else if ($("library-text").value.trim()) await open($("library-text").value, "pasted.txt");
  else status("paste ids or DOIs, or choose a .bib / .ris file", true);
});
offersGrowing();
$("query-name").addEventListener("change", showQuery);
$("query-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runQuery();
});
for (const input of [$("year-from"), $("year-to")]) input.addEventListener("input", filter);
$("y-axis").addEventListener("change", layout);
$("layout").addEventListener("change", layout);
for (const button of $("export").querySelectorAll("button")) {
  button.addEventListener("click", () => exportList(button.dataset.format));
}
cy.on("tap", "node", (event) => select(event.target.data("pid"), true));
cy.on("dbltap", "node", (event) => openPaper(event.target.data("pid")));
cy.on("mouseover", "node", (event) => {
  state.hover = event.target.data("pid");
  labels();
});
cy.on("mouseout", "node", () => {
  state.hover = null;
  labels();
});
$("graph").addEventListener("mouseleave", () => {  // cytoscape sends no mouseout when the pointer leaves it
  if (!state.hover) return;
  state.hover = null;
  labels();
});
let pending = false;
cy.on("viewport", () => {  // the force layout pans and zooms: the labels follow
  if (pending || $("layout").value === "map") return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    labels();
  });
});
new ResizeObserver(() => {  // the window or the query table changed the room: redraw in what is left
  cy.resize();
  layout();
}).observe($("graph"));

const start = new URLSearchParams(location.search).get("paper");
loadQueries().then(() => (start ? openPaper(start) : null));
window.explorer = { cy, state, openPaper, openSeeds, openLibrary, search, select, layout, exportList };
