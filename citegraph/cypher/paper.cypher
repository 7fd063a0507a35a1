// One paper with its fields, categories, authors (in their source's order: WROTE.position)
// and citation counts.
// $id: id — the paper
// Mode: read
// Returns: id, title, abstract, year, venue, venue_type, doi, arxiv_id, external, eligible, citation_count, references, fields, categories, authors (no row if absent).
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year, p.venue AS venue,
       p.venue_type AS venue_type, p.doi AS doi, p.arxiv_id AS arxiv_id,
       p:External AS external, p.eligible AS eligible, p.citation_count AS citation_count,
       COUNT { (p)-[:CITES]->() } AS references,
       [(p)-[:IN_FIELD]->(f) | f.name] AS fields,
       [(p)-[:IN_CATEGORY]->(c) | c.code] AS categories,
       COLLECT { MATCH (p)<-[w:WROTE]-(a:Author) RETURN a.name ORDER BY w.position, a.name } AS authors
