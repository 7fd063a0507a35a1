// The ids of every corpus paper that text scorers index, in order: :External stubs and
// papers without a title are left out. Ids only, projected before the sort: ArcadeDB's
// ORDER BY holds each row's whole context (the paper and its texts) unless a WITH drops it
// first, and sorting texts held a whole corpus in its query heap (2M papers were refused
// with an 8 GB heap); the texts come in batches from corpus/documents_by_id.
// $eligible_only: bool — only papers the prefilter marked eligible
// Mode: read
// Returns: id — one row per paper, by id.
MATCH (p:Paper)
WHERE NOT p:External AND trim(coalesce(p.title, '')) <> ''
  AND (NOT $eligible_only OR p.eligible = true)
WITH p.id AS id
RETURN id
ORDER BY id
