// Links papers to their authors (:Author)-[:WROTE {position}]->(:Paper).
// $rows: list — of {id: paper id, authors: list of {id, name, position}}
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.authors AS author
MERGE (a:Author {id: author.id})
ON CREATE SET a.name = author.name
MERGE (a)-[w:WROTE]->(p)
SET w.position = author.position
