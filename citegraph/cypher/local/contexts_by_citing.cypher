// The citation contexts the given citing papers' CITES edges carry: one row per edge with
// citing sentences (the cited marker reads [CIT]), with the sections they stand in and what
// the query side of local citation recommendation knows of the citing paper: title,
// abstract, year, arXiv id and arXiv categories. The cited paper may be an :External stub.
// Every context of the graph: local/context_citing_ids, then this in batches.
// $ids: list — citing paper ids
// Mode: read
// Returns: id (the citing paper), cited, contexts, sections, title, abstract, year, arxiv_id, categories — one row per edge, by citing then cited.
UNWIND $ids AS pid
MATCH (a:Paper {id: pid})-[c:CITES]->(b:Paper)
WHERE NOT a:External AND c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN a.id AS id, b.id AS cited, c.contexts AS contexts, c.sections AS sections,
       a.title AS title, a.abstract AS abstract, a.year AS year, a.arxiv_id AS arxiv_id,
       [(a)-[:IN_CATEGORY]->(x:ArxivCategory) | x.code] AS categories
ORDER BY id, cited
