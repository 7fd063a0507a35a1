// A paper's full text as its reader stored it: its sentences, one a line (line k is sentence k).
// $id: id — the paper
// Mode: read
// Returns: full_text (null when the source had no full text) — no row if the paper is absent.
MATCH (p:Paper {id: $id})
RETURN p.full_text AS full_text
