// The text of every corpus paper that text scorers index: title, abstract and keywords, by id.
// :External stubs and papers without a title are left out.
// $eligible_only: bool — only papers the prefilter marked eligible
// Mode: read
// Returns: id, title, abstract, keywords (abstract and keywords may be null) — one row per paper, by id.
MATCH (p:Paper)
WHERE NOT p:External AND trim(coalesce(p.title, '')) <> ''
  AND (NOT $eligible_only OR p.eligible = true)
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.keywords AS keywords
ORDER BY id
