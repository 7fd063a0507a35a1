// Every citing paper of a paper whose citation edge holds citing sentences.
// $cited: id — the cited paper
// $limit: int — at most this many citing papers
// Mode: read
// Returns: citing, title, contexts — one row per citing paper, by citing id.
MATCH (a:Paper)-[c:CITES]->(:Paper {id: $cited})
WHERE c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN a.id AS citing, a.title AS title, c.contexts AS contexts
ORDER BY citing
LIMIT $limit
