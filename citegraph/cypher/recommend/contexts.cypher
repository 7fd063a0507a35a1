// The citing sentences of the graph, for the recommender's contexts signal: one row per
// CITES edge that carries them, to a paper that is not an :External stub, with the citing
// paper's year (a view as of a year hides the sentences of later citing papers; undated
// citing papers are hidden then). Graphs without sentences (ACL-200 alone) return nothing.
// Mode: read
// Returns: citing, year, cited, contexts — one row per edge, by cited then citing.
MATCH (a:Paper)-[c:CITES]->(b:Paper)
WHERE NOT b:External AND c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN a.id AS citing, a.year AS year, b.id AS cited, c.contexts AS contexts
ORDER BY cited, citing
