"""Span retrieval for retrieval-augmented generation: chunkers and chunk retrievers evaluated on
the characters of a questions set's evidence (Chroma's questions CSV), with the official
measures of Chroma's chunking evaluation and LegalBench-RAG (:mod:`inexeval.measures.chroma`,
:mod:`inexeval.measures.legalbench`).

* :mod:`inexeval.rag.evaluate`: the rankings and chunkings of questions to results;
* :mod:`inexeval.rag.chunkers`: character chunkers located by offsets (``fixed``,
  ``recursive``);
* :mod:`inexeval.rag.retrieve`: BM25 retrieval of chunks (``bm25s``).
"""

from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent / "data" / "chroma"
"""Two corpora of Chroma's general evaluation (``chatlogs``, ``state_of_the_union``) and their
132 questions (``questions_df.csv``), from github brandonstarxel/chunking_evaluation (MIT licence,
``LICENSE`` beside them)."""
