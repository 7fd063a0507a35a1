// Papers most often cited together with paper $id (co-citation: both cited by the same
// paper), the classic signal of relatedness (Small 1973).
// $id: id — the paper
// $limit: int — how many papers
// Mode: read
// Returns: id, title, year, co_citations — most co-cited first, ties by id.
MATCH (p:Paper {id: $id})<-[:CITES]-(citing:Paper)-[:CITES]->(other:Paper)
WHERE other <> p
RETURN other.id AS id, other.title AS title, other.year AS year, count(DISTINCT citing) AS co_citations
ORDER BY co_citations DESC, id
LIMIT $limit
