"""Retrieval of chunks for the questions: BM25 (``bm25s``, the ``rag`` extra; its Lucene BM25
with k1 1.5, b 0.75), every chunk of every corpus in one index, as the official code puts every
chunk in one collection.

Words are bm25s's (``\\b\\w\\w+\\b``, lower-cased, its English stop words left out), found once
per corpus with their offsets (:class:`CorpusWords`); a chunk's words are those wholly inside it,
so that several chunkers of one corpus share one tokenisation (a word cut by a chunk's edge is
not counted, where tokenising the chunk's text would count its part).

Or dense retrieval (:func:`dense`): the cosine similarity of a sentence-transformers model's
embeddings of the question and of each chunk's text (:class:`Embedder`), every chunk of every
corpus competing too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError

if TYPE_CHECKING:
    from inexeval.formats.chroma import Questions, Spans

WORD = re.compile(r"(?u)\b\w\w+\b")
"""bm25s's default token pattern."""


def _bm25s() -> Any:
    try:
        import bm25s  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        raise InexevalError("BM25 retrieval needs bm25s: pip install 'inexeval[rag]'") from None
    return bm25s


class CorpusWords:
    """The words of every corpus: a vocabulary, and per corpus each word's id, start and end."""

    def __init__(self, corpora: Mapping[str, str]) -> None:
        from bm25s.stopwords import STOPWORDS_EN  # type: ignore[import-untyped, import-not-found, unused-ignore]

        _bm25s()
        stop = frozenset(STOPWORDS_EN)
        self.vocabulary: dict[str, int] = {}
        self.words: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                    npt.NDArray[np.int64]]] = {}
        code = self.vocabulary.setdefault
        for doc, text in corpora.items():
            found = [(code(w, len(self.vocabulary)), m.start(), m.end())
                     for m in WORD.finditer(text) if (w := m.group().lower()) not in stop]
            columns = np.array(found, dtype=np.int64).reshape(-1, 3)
            self.words[doc] = (columns[:, 0].copy(), columns[:, 1].copy(), columns[:, 2].copy())

    def of_chunks(self, chunks: Spans) -> list[list[int]]:
        """The word ids of each chunk (its words wholly inside it)."""
        out: list[list[int]] = [[] for _ in range(len(chunks))]
        for doc, (ids, starts, ends) in self.words.items():
            rows = np.flatnonzero(chunks.docs == doc)
            first = np.searchsorted(starts, chunks.starts[rows], side="left")
            last = np.searchsorted(ends, chunks.ends[rows], side="right")
            for row, a, b in zip(rows.tolist(), first.tolist(), last.tolist()):
                out[row] = ids[a:b].tolist() if b > a else []
        return out

    def query(self, text: str) -> list[str]:
        """A question's words in the vocabulary."""
        return [w for w in (m.group().lower() for m in WORD.finditer(text))
                if w in self.vocabulary]


def bm25(questions: Questions, chunks: Spans, depth: int,
         words: CorpusWords | None = None) -> dict[str, Spans]:
    """Each question's ``depth`` best chunks by BM25 (fewer when there are fewer chunks);
    ``words``: the corpora's words, when already found."""
    bm25s = _bm25s()
    from inexeval.formats.chroma import Spans

    if words is None:
        words = CorpusWords(questions.corpora)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenization.Tokenized(ids=words.of_chunks(chunks),
                                                 vocab=dict(words.vocabulary)),
                    show_progress=False)
    scores = _scores(retriever.scores, [words.query(q.text) for q in questions.questions],
                     words.vocabulary)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
    return {q.qid: Spans(chunks.docs[row], chunks.starts[row], chunks.ends[row])
            for q, row in zip(questions.questions, order)}


def _scores(index: Mapping[str, Any], queries: list[list[str]],
            vocabulary: Mapping[str, int]) -> npt.NDArray[np.float64]:
    """Every query's BM25 score of every chunk (queries x chunks), from bm25s's index (a
    chunks x words matrix of each word's score in each chunk, stored by word), summed over the
    query's words as bm25s's ``get_scores`` sums them (a repeated word counted each time)."""
    from scipy.sparse import csc_matrix, csr_matrix

    chunk_scores = csc_matrix((index["data"], index["indices"], index["indptr"]),
                              shape=(index["num_docs"], len(index["indptr"]) - 1))
    rows = [i for i, words in enumerate(queries) for _ in words]
    cols = [vocabulary[w] for words in queries for w in words]
    asked = csr_matrix((np.ones(len(cols)), (rows, cols)),
                       shape=(len(queries), chunk_scores.shape[1]))
    return np.asarray((asked @ chunk_scores.T).todense(), dtype=np.float64)


EMBEDDERS = ("sentence-transformers",)
"""The libraries ``--embedder LIBRARY:NAME`` takes."""


class Embedder:
    """A sentence-transformers model (``SentenceTransformer(name)``, loaded on first use), each
    distinct text embedded once (``encode(..., normalize_embeddings=True)``, in batches of
    ``batch_size``) and kept, so that the questions and the chunks several chunkings share are
    embedded once."""

    def __init__(self, spec: str, batch_size: int = 64) -> None:
        library, _, name = spec.partition(":")
        if library not in EMBEDDERS or not name:
            raise InexevalError(f"--embedder {spec!r}: expected sentence-transformers:NAME (a "
                                "model name or folder, e.g. "
                                "sentence-transformers:all-MiniLM-L6-v2)")
        self.spec = spec
        self.name = name
        self.batch_size = batch_size
        self._model: Any = None
        self._rows: dict[str, int] = {}
        self._vectors: list[npt.NDArray[np.float64]] = []

    def _load(self) -> Any:
        if self._model is None:
            try:
                import sentence_transformers  # type: ignore[import-untyped, import-not-found, unused-ignore]
            except ImportError:
                raise InexevalError(f"--embedder {self.spec}: needs sentence-transformers: pip "
                                    "install sentence-transformers") from None
            # its refusals (an unknown name, no network, a broken folder) come in many classes
            try:
                self._model = sentence_transformers.SentenceTransformer(self.name)
            except Exception as error:  # noqa: BLE001
                raise InexevalError(f"--embedder {self.spec}: sentence-transformers cannot load "
                                    f"{self.name!r}: {_first_line(error)}") from None
        return self._model

    def embed(self, texts: list[str]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
        """The distinct texts' unit vectors (a matrix, one row per distinct text embedded so
        far) and, for each text, its row."""
        new = [t for t in dict.fromkeys(texts) if t not in self._rows]
        if new:
            model = self._load()
            try:
                found = model.encode(new, batch_size=self.batch_size,
                                     normalize_embeddings=True, show_progress_bar=False)
            except (RuntimeError, ValueError, OSError) as error:  # torch's out of memory too
                raise InexevalError(f"--embedder {self.spec}: sentence-transformers failed to "
                                    f"embed: {_first_line(error)}") from None
            vectors = np.asarray(found, dtype=np.float64)
            width = self._vectors[0].shape[1] if self._vectors else None
            if vectors.ndim != 2 or len(vectors) != len(new) or (
                    width is not None and vectors.shape[1] != width):
                raise InexevalError(f"--embedder {self.spec}: {len(new)} texts gave embeddings "
                                    f"of shape {vectors.shape}")
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            self._vectors.append(np.divide(vectors, norms, out=np.zeros_like(vectors),
                                           where=norms > 0))
            base = len(self._rows)
            self._rows.update((t, base + i) for i, t in enumerate(new))
        if not self._vectors:
            return np.zeros((0, 0)), np.zeros(0, dtype=np.intp)
        matrix = (self._vectors[0] if len(self._vectors) == 1
                  else np.concatenate(self._vectors))
        self._vectors = [matrix]
        return matrix, np.array([self._rows[t] for t in texts], dtype=np.intp)


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def dense(questions: Questions, chunks: Spans, depth: int, embedder: Embedder,
          block: int = 64) -> dict[str, Spans]:
    """Each question's ``depth`` best chunks by the cosine similarity of the embeddings of its
    text and of the chunks' texts (fewer when there are fewer chunks), every chunk of every
    corpus competing as in BM25's one index; ties (identical texts among them) in the
    chunking's order."""
    from inexeval.formats.chroma import EMPTY, Spans

    corpora = questions.corpora
    texts = [corpora[d][s:e] for d, s, e in zip(chunks.docs.tolist(), chunks.starts.tolist(),
                                                   chunks.ends.tolist())]
    if not texts:
        return {q.qid: EMPTY for q in questions.questions}
    matrix, rows = embedder.embed(texts + [q.text for q in questions.questions])
    # the distinct chunk texts' scores, spread over the chunks: identical texts tie exactly
    distinct, inverse = np.unique(rows[:len(texts)], return_inverse=True)
    vectors = matrix[distinct].T
    asked = rows[len(texts):]
    out: dict[str, Spans] = {}
    for first in range(0, len(questions), block):
        part = questions.questions[first:first + block]
        scores = (matrix[asked[first:first + block]] @ vectors)[:, inverse.reshape(-1)]
        order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
        out.update((q.qid, Spans(chunks.docs[row], chunks.starts[row], chunks.ends[row]))
                   for q, row in zip(part, order))
    return out
