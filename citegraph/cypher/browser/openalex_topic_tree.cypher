// OpenAlex's topic tree below one of its nodes (a domain, field or subfield): every topic
// under it with its path up to the node, and how many works have it as primary topic.
// Drawn as a tree in Neo4j Browser (it returns paths).
// $id: string — the node's id, e.g. 'fields/17' (Computer Science; 'domains/3', 'subfields/1702')
// Mode: read
// Returns: path — (topic)-[:BROADER_TOPIC*]->(node), works — papers whose primary topic it is; most works first.
MATCH path = (t:Topic {level: 'topic'})-[:BROADER_TOPIC*1..3]->(:Topic {id: $id})
OPTIONAL MATCH (p:Paper)-[r:IN_TOPIC]->(t)
WHERE r.primary
WITH path, count(p) AS works
RETURN path, works
ORDER BY works DESC
