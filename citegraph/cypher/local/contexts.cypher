// The citation contexts of the graph: one row per CITES edge that carries citing sentences
// (the cited marker reads [CIT]), with the sections they stand in and what the query side
// of local citation recommendation knows of the citing paper: title, abstract, year,
// arXiv id and arXiv categories. The cited paper may be an :External stub.
// Mode: read
// Returns: citing, cited, contexts, sections, title, abstract, year, arxiv_id, categories — one row per edge, by citing then cited.
MATCH (a:Paper)-[c:CITES]->(b:Paper)
WHERE NOT a:External AND c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN a.id AS citing, b.id AS cited, c.contexts AS contexts, c.sections AS sections,
       a.title AS title, a.abstract AS abstract, a.year AS year, a.arxiv_id AS arxiv_id,
       [(a)-[:IN_CATEGORY]->(x:ArxivCategory) | x.code] AS categories
ORDER BY citing, cited
