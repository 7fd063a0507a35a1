"""Scoring the candidates the graph hands over: BM25 (Lucene), dense encoders, fusion."""
