// The graph candidate pool of a query paper, each candidate with its type: how the graph
// links it to the query — 'reference' (the query cites it: the answers),
// 'cited_by_reference' (its references cite it), 'co_cited' (cited together with one of its
// references by another paper), 'coupled' (cites one of its references). A candidate
// linked several ways appears once per type; links counts the paths of that type.
// The recommender (citegraph recommend) draws its graph candidates from the same links.
// $id: id — the query paper id, e.g. 'P12-1066' (ACL-200)
// $limit: int — at most this many candidates of each type (most links first), e.g. 20
// Mode: read
// Returns: type, id, title, year, links — by type, then most links first, ties by id.
MATCH (q:Paper {id: $id})-[:CITES]->(c:Paper)
RETURN 'reference' AS type, c.id AS id, c.title AS title, c.year AS year, 1 AS links
ORDER BY id
UNION ALL
MATCH (q:Paper {id: $id})-[:CITES]->(r:Paper)
WITH q, collect(r) AS refs
UNWIND refs AS r
MATCH (r)-[:CITES]->(c:Paper)
WHERE c <> q AND NOT c IN refs
WITH c, count(*) AS links ORDER BY links DESC, c.id LIMIT $limit
RETURN 'cited_by_reference' AS type, c.id AS id, c.title AS title, c.year AS year, links
UNION ALL
MATCH (q:Paper {id: $id})-[:CITES]->(r:Paper)
WITH q, collect(r) AS refs
UNWIND refs AS r
MATCH (r)<-[:CITES]-(x:Paper)-[:CITES]->(c:Paper)
WHERE x <> q AND c <> q AND NOT c IN refs
WITH c, count(*) AS links ORDER BY links DESC, c.id LIMIT $limit
RETURN 'co_cited' AS type, c.id AS id, c.title AS title, c.year AS year, links
UNION ALL
MATCH (q:Paper {id: $id})-[:CITES]->(r:Paper)
WITH q, collect(r) AS refs
UNWIND refs AS r
MATCH (r)<-[:CITES]-(c:Paper)
WHERE c <> q AND NOT c IN refs
WITH c, count(*) AS links ORDER BY links DESC, c.id LIMIT $limit
RETURN 'coupled' AS type, c.id AS id, c.title AS title, c.year AS year, links
