"""Pure parsers of the formats citegraph reads, shared by the ingest and the user's library:
BibTeX as BibTeX reads it and the LaTeX in its values decoded to text. No graph, no I/O beyond
the text they are handed."""
