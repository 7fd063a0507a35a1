// Links papers to their authors (:Author)-[:WROTE {position}]->(:Paper).
// An author's properties (its name) are those of the first record that names it.
// $rows: list — of {id: paper id, authors: list of {id, props: map of the Author properties, position}}
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.authors AS author
MERGE (a:Author {id: author.id})
ON CREATE SET a += author.props
MERGE (a)-[w:WROTE]->(p)
SET w.position = author.position
