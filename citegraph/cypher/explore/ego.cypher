// A paper's ego network as the explorer draws it, one row per neighbour, by kind:
//   'cites' / 'cited_by': the papers it cites / that cite it (most cited first),
//   'co_cited': papers cited together with it (weight: by how many papers), through at most
//               $fanout of its citing papers (in storage order, as the recommender's
//               neighbourhood): a hub's costs what a paper cited $fanout times does,
//   'field', 'category': its MAG fields and arXiv categories,
//   'acm': the ACM concepts its categories map to (via: the category).
// Paper kinds are cut at $limit each; the order within a kind is decided here.
// $id: string — the paper
// $limit: int — at most this many papers of each kind
// $fanout: int — at most this many citing papers are followed for 'co_cited'
// Mode: read
// Returns: kind, id, title, year, citations, external, weight, via — one row per neighbour (title: a field's or category's name, an ACM concept's label; year, citations null for non-papers).
MATCH (p:Paper {id: $id})-[:CITES]->(c:Paper)
WITH c ORDER BY c.citation_count DESC, c.id LIMIT $limit
RETURN 'cites' AS kind, c.id AS id, c.title AS title, c.year AS year, c.citation_count AS citations,
       c:External AS external, 1 AS weight, null AS via
UNION ALL
MATCH (p:Paper {id: $id})<-[:CITES]-(c:Paper)
WITH c ORDER BY c.citation_count DESC, c.id LIMIT $limit
RETURN 'cited_by' AS kind, c.id AS id, c.title AS title, c.year AS year, c.citation_count AS citations,
       c:External AS external, 1 AS weight, null AS via
UNION ALL
MATCH (p:Paper {id: $id})
CALL (p) {
  MATCH (p)<-[:CITES]-(x:Paper)
  RETURN x
  LIMIT $fanout
}
MATCH (x)-[:CITES]->(c:Paper)
WHERE c <> p
WITH c, count(DISTINCT x) AS weight ORDER BY weight DESC, c.id LIMIT $limit
RETURN 'co_cited' AS kind, c.id AS id, c.title AS title, c.year AS year, c.citation_count AS citations,
       c:External AS external, weight, null AS via
UNION ALL
MATCH (p:Paper {id: $id})-[:IN_FIELD]->(f:Field)
RETURN 'field' AS kind, f.name AS id, f.name AS title, null AS year, null AS citations, false AS external,
       1 AS weight, null AS via ORDER BY id
UNION ALL
MATCH (p:Paper {id: $id})-[:IN_CATEGORY]->(a:ArxivCategory)
RETURN 'category' AS kind, a.code AS id, a.name AS title, null AS year, null AS citations, false AS external,
       1 AS weight, null AS via ORDER BY id
UNION ALL
MATCH (p:Paper {id: $id})-[:IN_CATEGORY]->(a:ArxivCategory)-[:MAPS_TO]->(m:AcmConcept)
RETURN 'acm' AS kind, m.code AS id, m.label AS title, null AS year, null AS citations, false AS external,
       1 AS weight, a.code AS via ORDER BY via, id
