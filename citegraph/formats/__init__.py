"""Pure parsers of the formats citegraph reads, shared by the ingest, the benchmarks and the
user's library: BibTeX as BibTeX reads it and the LaTeX in its values decoded to text; TREC's
topics, qrels and runs. No graph; no I/O beyond the text they are handed, or for TREC's, the
file they read or write (an error names its line)."""
