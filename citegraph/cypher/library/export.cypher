// What a reference manager needs of papers: every field of the record the graph has, the
// authors in their source's order (WROTE.position; ties, from records of one id merged, by name).
// $ids: list — paper ids
// Mode: read
// Returns: id, title, abstract, year, venue, venue_type, doi, arxiv, keywords, authors — one row per paper found, in no particular order.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year, p.venue AS venue,
       p.venue_type AS venue_type, p.doi AS doi, p.arxiv_id AS arxiv, p.keywords AS keywords,
       COLLECT { MATCH (p)<-[w:WROTE]-(a:Author) RETURN a.name ORDER BY w.position, a.name } AS authors
