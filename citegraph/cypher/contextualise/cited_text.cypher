// The text of a cited paper that contextualisation ranks: its title and abstract.
// $id: string — the cited paper
// Returns: id, title, abstract (either may be null) — no row if the paper is absent.
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract
