// The citegraph explorer: search a paper, draw its ego network (GET /neighbours), expand
// any paper by clicking it, ask for recommendations with their reasons (POST /recommend),
// and run the saved exploration queries (GET /queries, POST /queries/{name}).
// Plain browser JavaScript over the JSON API; cytoscape.js is vendored under /static/vendor.
"use strict";

const COLOURS = { paper: "#4c8eda", focus: "#1b4f91", external: "#c0c4cc", recommended: "#8e44ad",
                  field: "#f79767", category: "#57c7e3", acm: "#5db665" };
const KIND_TITLES = { cites: "Cites", cited_by: "Cited by", co_cited: "Co-cited with",
                      field: "Fields", category: "arXiv categories", acm: "ACM concepts" };
const NEIGHBOURS = 15;  // papers of each kind drawn per expansion

const $ = (id) => document.getElementById(id);
const state = { focus: null, expanded: new Set() };

const cy = cytoscape({
  container: $("graph"),
  style: [
    { selector: "node", style: { "label": "data(label)", "font-size": 8, "text-wrap": "ellipsis",
      "text-max-width": 110, "text-valign": "bottom", "text-margin-y": 3, "width": 14, "height": 14,
      "background-color": COLOURS.paper, "color": "#333" } },
    { selector: "node.external", style: { "background-color": COLOURS.external } },
    { selector: "node.expanded", style: { "width": 18, "height": 18, "border-width": 2, "border-color": COLOURS.focus } },
    { selector: "node.recommended", style: { "background-color": COLOURS.recommended } },
    { selector: "node.quiet", style: { "label": "" } },
    { selector: "node.quiet.hover", style: { "label": "data(label)", "z-index": 10 } },
    { selector: "node.focus", style: { "background-color": COLOURS.focus, "width": 26, "height": 26,
      "font-size": 10, "font-weight": "bold", "text-max-width": 180 } },
    { selector: "node.field", style: { "shape": "round-rectangle", "background-color": COLOURS.field,
      "width": 22, "height": 14 } },
    { selector: "node.category", style: { "shape": "diamond", "background-color": COLOURS.category,
      "width": 18, "height": 18 } },
    { selector: "node.acm", style: { "shape": "hexagon", "background-color": COLOURS.acm, "width": 16, "height": 16 } },
    { selector: "edge", style: { "width": 1, "line-color": "#b9c3d3", "curve-style": "bezier" } },
    { selector: "edge.cites", style: { "target-arrow-shape": "triangle", "target-arrow-color": "#8aa2c8",
      "line-color": "#8aa2c8", "arrow-scale": 0.7 } },
    { selector: "edge.co_cited", style: { "line-style": "dashed", "line-color": "#c9a0dc",
      "width": "mapData(weight, 1, 20, 1, 5)" } },
    { selector: "edge.recommended", style: { "line-style": "dotted", "line-color": COLOURS.recommended } },
    { selector: "edge.field, edge.category, edge.acm", style: { "line-color": "#ddd" } },
  ],
});

function nodeId(kind, id) {
  return ["field", "category", "acm"].includes(kind) ? `${kind}:${id}` : `paper:${id}`;
}

function addNode(kind, id, label, extra = {}) {
  const key = nodeId(kind, id);
  const node = cy.getElementById(key);
  if (node.nonempty()) return node;
  const classes = ["field", "category", "acm"].includes(kind) ? kind : "paper";
  return cy.add({ group: "nodes", data: { id: key, pid: id, kind: classes, label: label || id, ...extra },
                  classes: classes + (extra.external ? " external" : "") });
}

function addEdge(type, source, target, weight = 1) {
  const key = `${type}:${source}->${target}`;
  if (cy.getElementById(key).empty() && cy.getElementById(source).nonempty() && cy.getElementById(target).nonempty()) {
    cy.add({ group: "edges", data: { id: key, source, target, weight }, classes: type });
  }
}

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
  button.addEventListener("click", () => openPaper(id));
  return button;
}

function shortTitle(title, id) {
  if (!title) return id;
  return title.length > 40 ? `${title.slice(0, 38)}…` : title;
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

// -- the ego network --------------------------------------------------------------------
async function openPaper(id) {
  status(`loading ${id}…`);
  let data;
  try {
    data = await api(`/neighbours/${encodeURIComponent(id)}?limit=${NEIGHBOURS}`);
  } catch (error) {
    status(error.message, true);
    return;
  }
  const centre = data.paper;
  const centreKey = nodeId("paper", centre.id);
  addNode("paper", centre.id, shortTitle(centre.title, centre.id), { title: centre.title, year: centre.year,
                                                                     external: centre.external });
  for (const n of data.neighbours) {
    if (n.kind === "acm") {
      addNode("category", n.via, n.via);
      addNode("acm", n.id, `${n.id} ${n.title || ""}`.trim(), { title: n.title });
      addEdge("acm", nodeId("category", n.via), nodeId("acm", n.id));
      continue;
    }
    const label = ["field", "category"].includes(n.kind) ? n.id : shortTitle(n.title, n.id);
    addNode(n.kind, n.id, label, { title: n.title, year: n.year, citations: n.citations, external: n.external });
    const other = nodeId(n.kind, n.id);
    if (n.kind === "cites") addEdge("cites", centreKey, other);
    else if (n.kind === "cited_by") addEdge("cites", other, centreKey);
    else if (n.kind === "co_cited") addEdge("co_cited", centreKey, other, n.weight);
    else addEdge(n.kind, centreKey, other);
  }
  cy.nodes().removeClass("focus");
  cy.getElementById(centreKey).addClass("focus expanded");
  state.focus = centre.id;
  state.expanded.add(centre.id);
  showDetails(centre);
  showNeighbours(data.neighbours);
  $("recommend").disabled = false;
  $("recommendations").replaceChildren();
  fillQueryParams();
  layout(centreKey);
  status(`${centre.id}: ${data.neighbours.length} neighbours · ${cy.nodes().length} nodes drawn`);
}

function layout(centreKey) {
  // In a crowded drawing only the opened, recommended and non-paper nodes keep their
  // labels; the others show theirs under the mouse.
  const crowded = cy.nodes().length > 40;
  cy.nodes("node.paper").forEach((n) => {
    n.toggleClass("quiet", crowded && !n.hasClass("expanded") && !n.hasClass("recommended"));
  });
  const options = cy.nodes().length < 3
    ? { name: "grid" }
    : { name: "cose", animate: false, randomize: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 70,
        numIter: 1500, fit: true, padding: 30 };
  cy.layout(options).run();
  if (centreKey) cy.getElementById(centreKey).select();
}

function showDetails(p) {
  const box = $("details");
  const tags = el("div", null, "tags");
  for (const t of [...p.fields, ...p.categories]) tags.append(el("span", t));
  box.replaceChildren(
    el("h3", p.title || p.id),
    el("p", [p.id, p.year, p.venue].filter(Boolean).join(" · "), "muted"),
    el("p", p.authors.length ? p.authors.join(", ") : ""),
    el("p", `${p.references} references · cited ${p.citation_count ?? 0} times${p.external ? " · external stub" : ""}`),
    tags,
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

// -- recommendations --------------------------------------------------------------------
async function recommend() {
  if (!state.focus) return;
  status(`recommending for ${state.focus}…`);
  try {
    const data = await api("/recommend", { paper: state.focus, k: 10, explain: true });
    const list = $("recommendations");
    list.replaceChildren(...data.recommendations.map((r) => {
      const item = el("li");
      item.append(paperLink(r.id, r.title, r.year), el("span", ` · ${r.score.toFixed(3)}`, "muted"));
      const why = el("ul", null, "why");
      for (const line of r.explanation) why.append(el("li", line));
      item.append(why);
      addNode("paper", r.id, shortTitle(r.title, r.id), { title: r.title, year: r.year });
      cy.getElementById(nodeId("paper", r.id)).addClass("recommended");
      addEdge("recommended", nodeId("paper", state.focus), nodeId("paper", r.id));
      return item;
    }));
    layout(nodeId("paper", state.focus));
    status(`${data.recommendations.length} recommendations for ${state.focus}`);
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
  if (input && state.focus) input.value = state.focus;
}

function typed(input) {
  const text = input.value.trim();
  if (input.dataset.type === "string") return text;
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
$("recommend").addEventListener("click", recommend);
$("query-name").addEventListener("change", showQuery);
$("query-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runQuery();
});
cy.on("tap", "node.paper", (event) => openPaper(event.target.data("pid")));
cy.on("mouseover", "node", (event) => event.target.addClass("hover"));
cy.on("mouseout", "node", (event) => event.target.removeClass("hover"));
new ResizeObserver(() => {  // the query table takes room below: redraw the graph in what is left
  cy.resize();
  cy.fit(undefined, 30);
}).observe($("graph"));
cy.on("tap", "node.field, node.category, node.acm", (event) => {
  const data = event.target.data();
  status(`${data.kind} ${data.pid}${data.title && data.title !== data.pid ? ` — ${data.title}` : ""}`);
});

const start = new URLSearchParams(location.search).get("paper");
loadQueries().then(() => (start ? openPaper(start) : null));
window.explorer = { cy, state, openPaper, search, recommend };
