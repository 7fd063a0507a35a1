// The given corpus papers (not :External) as local citation recommendation sees a candidate
// or a citing paper: its text, its date for time-ordered splits and its arXiv categories
// (every paper: local/paper_ids, then this in batches).
// $ids: list — paper ids
// Mode: read
// Returns: id, title, abstract, year, arxiv_id, categories — one row per paper found, by id (title, abstract, year may be null).
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})
WHERE NOT p:External
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year, p.arxiv_id AS arxiv_id,
       [(p)-[:IN_CATEGORY]->(x:ArxivCategory) | x.code] AS categories
ORDER BY id
