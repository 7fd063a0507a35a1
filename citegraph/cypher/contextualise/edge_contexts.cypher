// The citing sentences stored on one citation edge.
// $citing: id — the citing paper
// $cited: id — the cited paper
// Mode: read
// Returns: contexts (a list of strings, or null when the edge has none) — no row if the edge is absent.
MATCH (:Paper {id: $citing})-[c:CITES]->(:Paper {id: $cited})
RETURN c.contexts AS contexts
