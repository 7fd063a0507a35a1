// The seed paper of a recommendation: its text, year, fields, categories and references.
// $id: string — the paper id
// Mode: read
// Returns: id, title, abstract, year, fields, categories, references (no row if absent).
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year,
       [(p)-[:IN_FIELD]->(f:Field) | f.name] AS fields,
       [(p)-[:IN_CATEGORY]->(a:ArxivCategory) | a.code] AS categories,
       [(p)-[:CITES]->(r:Paper) | r.id] AS references
