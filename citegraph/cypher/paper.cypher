// One paper with its fields, categories, authors and citation counts.
// $id: id — the paper
// Mode: read
// Returns: id, title, abstract, year, venue, external, eligible, citation_count, references, fields, categories, authors (no row if absent).
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year, p.venue AS venue,
       p:External AS external, p.eligible AS eligible, p.citation_count AS citation_count,
       COUNT { (p)-[:CITES]->() } AS references,
       [(p)-[:IN_FIELD]->(f) | f.name] AS fields,
       [(p)-[:IN_CATEGORY]->(c) | c.code] AS categories,
       [(p)<-[:WROTE]-(a:Author) | a.name] AS authors
