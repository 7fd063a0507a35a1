// A library (a set of graph papers) as one seed: its papers' titles and abstracts, the
// text query of the recommendation, and the ids not in the graph.
// $ids: list — the library's paper ids
// $as_of: int — texts of papers later than this year are left out of the query, or null
// Mode: read
// Returns: titles, abstracts (of the papers found, id order), missing (ids not in the graph).
UNWIND $ids AS id
OPTIONAL MATCH (p:Paper {id: id})
WITH id, p ORDER BY id
RETURN [x IN collect(CASE WHEN p IS NOT NULL AND ($as_of IS NULL OR coalesce(p.year, 0) <= $as_of)
                          THEN coalesce(p.title, '') END) WHERE x IS NOT NULL] AS titles,
       [x IN collect(CASE WHEN p IS NOT NULL AND ($as_of IS NULL OR coalesce(p.year, 0) <= $as_of)
                          THEN coalesce(p.abstract, '') END) WHERE x IS NOT NULL] AS abstracts,
       [x IN collect(CASE WHEN p IS NULL THEN id END) WHERE x IS NOT NULL] AS missing
