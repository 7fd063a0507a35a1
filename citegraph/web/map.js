// The explorer's map, as Litmaps draws one: x = publication year, y = citations in the graph
// (log) or similarity to the seeds, node size by citations, colour by role — or cytoscape's
// force layout. Labels are HTML boxes over the canvas, placed greedily (most important
// paper first) where they overlap neither a placed label nor another paper; a label that
// fits nowhere is not shown (the paper's label appears when it is hovered or selected).
(() => {
"use strict";

const ROLE_COLOURS = { seed: "#d1495b", recommended: "#8e44ad", prior: "#e09f1f", derivative: "#2a9d8f",
                       reference: "#4c8eda", citing: "#98a2b3" };
const ROLE_NAMES = { seed: "Seeds", recommended: "Recommended", prior: "Prior works", derivative: "Derivative works",
                     reference: "References", citing: "Citing" };
const MARGIN = { left: 46, right: 18, top: 16, bottom: 30 };  // room for the axes, in pixels

function hashUnit(text) {  // a stable number in [0, 1) per paper: the jitter within its year
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return ((h >>> 0) % 1000) / 1000;
}

function yValue(data, axis) {
  return axis === "similarity" ? data.similarity : Math.log10(1 + data.citations);
}

// Positions in rendered pixels (the map is drawn at zoom 1, no pan): the axes can be drawn
// in the same coordinates.
function mapPositions(nodes, width, height, years, axis) {
  const values = nodes.map((n) => yValue(n.data(), axis));
  const low = axis === "similarity" ? 0 : 0;
  const high = Math.max(axis === "similarity" ? 0.05 : 1, ...values);
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const span = years[1] - years[0] + 1;  // each year a column; papers spread inside theirs
  const positions = {};
  nodes.forEach((n) => {
    const d = n.data();
    const year = d.year ?? years[0];
    const x = MARGIN.left + ((year - years[0]) + 0.15 + 0.7 * hashUnit(d.id)) / span * plotW;
    const y = MARGIN.top + (1 - (yValue(d, axis) - low) / (high - low)) * plotH;
    positions[n.id()] = { x, y };
  });
  return { positions, scale: { low, high, plotW, plotH, span } };
}

function drawAxes(svg, width, height, years, axis, scale) {
  const ns = "http://www.w3.org/2000/svg";
  const line = (x1, y1, x2, y2, cls) => {
    const l = document.createElementNS(ns, "line");
    Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => l.setAttribute(k, v));
    l.setAttribute("class", cls);
    return l;
  };
  const text = (x, y, content, anchor, cls = "tick") => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("text-anchor", anchor);
    t.setAttribute("class", cls);
    t.textContent = content;
    return t;
  };
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const bottom = height - MARGIN.bottom;
  svg.append(line(MARGIN.left, bottom, width - MARGIN.right, bottom, "axis"),
             line(MARGIN.left, MARGIN.top, MARGIN.left, bottom, "axis"));
  const step = Math.max(1, Math.ceil(scale.span / Math.max(2, Math.floor(scale.plotW / 55))));
  for (let y = years[0]; y <= years[1]; y += step) {
    const x = MARGIN.left + ((y - years[0]) + 0.5) / scale.span * scale.plotW;
    svg.append(line(x, bottom, x, bottom + 4, "axis"), text(x, bottom + 16, String(y), "middle"));
  }
  const ticks = axis === "similarity"
    ? [0, 0.25, 0.5, 0.75, 1].map((f) => f * scale.high)
    : [0, 1, 10, 100, 1000, 10000].map((c) => Math.log10(1 + c)).filter((v) => v <= scale.high);
  for (const v of ticks) {
    const y = MARGIN.top + (1 - (v - scale.low) / (scale.high - scale.low)) * scale.plotH;
    const label = axis === "similarity" ? v.toFixed(2) : String(Math.round(10 ** v - 1));
    svg.append(line(MARGIN.left - 4, y, MARGIN.left, y, "axis"), line(MARGIN.left, y, width - MARGIN.right, y, "grid"),
               text(MARGIN.left - 7, y + 4, label, "end"));
  }
  const title = text(12, MARGIN.top + scale.plotH / 2, axis === "similarity" ? "similarity" : "citations",
                     "middle", "axis-title");
  title.setAttribute("transform", `rotate(-90 12 ${MARGIN.top + scale.plotH / 2})`);
  svg.append(title);
}

function clamped(box, width, height) {  // the box moved inside the drawing
  const dx = Math.max(0, -box.x1) - Math.max(0, box.x2 - width);
  const dy = Math.max(0, -box.y1) - Math.max(0, box.y2 - height);
  return { x1: box.x1 + dx, y1: box.y1 + dy, x2: box.x2 + dx, y2: box.y2 + dy };
}

function overlaps(a, b) {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

// Labels for the visible nodes, most important first: each takes the first of four places
// around its node that stays inside the drawing (above ``bottom`` pixels kept clear) and clear of
// placed labels and other nodes.
function placeLabels(cy, layer, ordered, labelOf, emphasised, bottom = 0) {
  layer.replaceChildren();
  const width = layer.clientWidth;
  const height = layer.clientHeight - bottom;  // the map keeps its year axis clear
  const boxOf = (n) => {
    const p = n.renderedPosition();
    const r = n.renderedWidth() / 2;
    return { x1: p.x - r, y1: p.y - r, x2: p.x + r, y2: p.y + r, id: n.id() };
  };
  const nodes = ordered.map(boxOf);
  const placed = [];
  for (const n of ordered) {
    const key = n.id();
    const label = document.createElement("div");
    label.className = "label" + (emphasised.has(key) ? " emphasised" : "");
    label.textContent = labelOf(n, emphasised.has(key));
    label.dataset.node = key;
    layer.append(label);
    const w = label.offsetWidth;
    const h = label.offsetHeight;
    const p = n.renderedPosition();
    const r = n.renderedWidth() / 2 + 2;
    const spots = [[p.x + r, p.y - h / 2], [p.x - r - w, p.y - h / 2], [p.x - w / 2, p.y - r - h],
                   [p.x - w / 2, p.y + r], [p.x + r * 0.7, p.y - r * 0.7 - h], [p.x + r * 0.7, p.y + r * 0.7],
                   [p.x - r * 0.7 - w, p.y - r * 0.7 - h], [p.x - r * 0.7 - w, p.y + r * 0.7]];
    const boxes = spots.map(([x, y]) => ({ x1: x, y1: y, x2: x + w, y2: y + h }));
    const inside = (box) => box.x1 >= 0 && box.y1 >= 0 && box.x2 <= width && box.y2 <= height;
    const clear = (box) => !placed.some((other) => overlaps(box, other));
    // A hovered or selected paper's label is always shown (it may cover other papers, never a label).
    const own = nodes.find((other) => other.id === key);
    const spot = boxes.find((box) => inside(box) && clear(box)
                            && !nodes.some((other) => other.id !== key && overlaps(box, other)))
      ?? (emphasised.has(key) ? boxes.find((box) => inside(box) && clear(box))
          ?? boxes.map((box) => clamped(box, width, height)).find((box) => clear(box) && !overlaps(box, own))
          : undefined);
    if (!spot) {
      label.remove();
      continue;
    }
    label.style.left = `${spot.x1}px`;
    label.style.top = `${spot.y1}px`;
    placed.push(spot);
  }
}

window.citegraphMap = { ROLE_COLOURS, ROLE_NAMES, MARGIN, mapPositions, drawAxes, placeLabels };
})();
