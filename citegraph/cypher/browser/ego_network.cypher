// Ego network of a paper: what it cites, what cites it, its fields, its arXiv categories and their ACM concepts.
// Drawn as a graph in Neo4j Browser (it returns paths); set the parameters first, e.g.
// `:param id => 'P12-1066'` and `:param limit => 25`.
// $id: id — the paper id, e.g. 'P12-1066' (ACL-200)
// $limit: int — at most this many citing and this many cited papers (most cited first), e.g. 25
// Mode: read
// Returns: path — one path per neighbour (paper, field, category → ACM concept).
MATCH (p:Paper {id: $id})-[:CITES]->(c:Paper)
WITH p, c ORDER BY c.citation_count DESC, c.id LIMIT $limit
MATCH path = (p)-[:CITES]->(c)
RETURN path
UNION ALL
MATCH (p:Paper {id: $id})<-[:CITES]-(c:Paper)
WITH p, c ORDER BY c.citation_count DESC, c.id LIMIT $limit
MATCH path = (p)<-[:CITES]-(c)
RETURN path
UNION ALL
MATCH path = (:Paper {id: $id})-[:IN_FIELD]->(:Field)
RETURN path
UNION ALL
MATCH path = (:Paper {id: $id})-[:IN_CATEGORY]->(:ArxivCategory)-[:MAPS_TO]->(:AcmConcept)
RETURN path
