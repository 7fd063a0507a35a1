// What the recommender needs of each candidate besides its links to the seed's references
// (those come from recommend/neighbourhood): metadata for filters and display, and its
// citations by papers other than the seed — the maintained citation_count less the seed's
// own edge (counting inbound edges instead costs a hub paper thousands of reads). One row
// holding one list per candidate found (far cheaper to ship than a row per candidate; a
// list, not collect() of each property, because collect() drops nulls and a title or year
// may be null). As of a year, the citations are counted from the citing papers of that
// year or before instead (undated ones left out). A requested field or arXiv category is
// checked here, so that a candidate's fields and categories are read only when asked for.
// Last, the date the paper was ingested (null before the graph recorded it), for alerts.
// $ids: list — candidate ids
// $seed: string — the seed paper id ('' for a paper not in the graph)
// $as_of: int — count only citations made in this year or before, or null for all
// $field: string — only candidates in this MAG field, or null for any
// $category: string — only candidates in this arXiv category, or null for any
// Mode: read
// Returns: candidates — a list of [id, title, year, external, citations, ingested] per candidate found (and in the field and category).
OPTIONAL MATCH (s:Paper {id: $seed})-[:CITES]->(r:Paper)
WITH collect(r.id) AS cited
UNWIND $ids AS id
MATCH (c:Paper {id: id})
WHERE ($field IS NULL OR EXISTS { (c)-[:IN_FIELD]->(:Field {name: $field}) })
  AND ($category IS NULL OR EXISTS { (c)-[:IN_CATEGORY]->(:ArxivCategory {code: $category}) })
RETURN collect([c.id, c.title, c.year, c:External,
                CASE WHEN $as_of IS NULL THEN coalesce(c.citation_count, 0)
                     ELSE COUNT { (x:Paper)-[:CITES]->(c) WHERE x.year <= $as_of } END
                - CASE WHEN c.id IN cited THEN 1 ELSE 0 END,
                c.ingested]) AS candidates
