// What a reference manager needs of papers: title, year, venue, authors, DOI, arXiv id.
// $ids: list — paper ids
// Mode: read
// Returns: id, title, year, venue, doi, arxiv, authors — one row per paper found, in no particular order.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN p.id AS id, p.title AS title, p.year AS year, p.venue AS venue, p.doi AS doi, p.arxiv_id AS arxiv,
       [(p)<-[:WROTE]-(a:Author) | a.name] AS authors
