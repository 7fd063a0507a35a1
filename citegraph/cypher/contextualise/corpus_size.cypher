// How much text contextualisation's collection model and word vectors were built from:
// a build made on other counts is stale.
// Mode: read
// Returns: papers (corpus papers with a title, as corpus/document_ids), contexts (CITES edges holding citing sentences) — one row.
MATCH (p:Paper)
WHERE NOT p:External AND trim(coalesce(p.title, '')) <> ''
WITH count(p) AS papers
OPTIONAL MATCH ()-[c:CITES]->()
WHERE c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN papers, count(c) AS contexts
