// The citing sentences of all citation edges, streamed to train word vectors for
// contextualisation (citation language differs from abstracts).
// Mode: read
// Returns: contexts (a list of strings) — one row per edge that has contexts, in no order.
MATCH ()-[c:CITES]->()
WHERE c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN c.contexts AS contexts
