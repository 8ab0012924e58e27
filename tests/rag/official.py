"""The official scoring code of Chroma's chunking evaluation (``reference/base_evaluation.py``,
unmodified), imported with its ``chromadb`` and ``chunking_evaluation.utils`` imports stubbed
(its scoring needs only pandas and numpy)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

REFERENCE = Path(__file__).parent / "reference" / "base_evaluation.py"
DATA = Path(__file__).resolve().parents[2] / "src" / "inexeval" / "rag" / "data" / "chroma"


def _stub(name: str, **attributes: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules.setdefault(name, module)


def official() -> Any:
    """The module ``base_evaluation`` (needs pandas)."""
    _stub("chromadb", Client=lambda: None, PersistentClient=lambda path: None)
    _stub("chromadb.utils")
    _stub("chromadb.utils.embedding_functions")
    _stub("chunking_evaluation")
    _stub("chunking_evaluation.utils", rigorous_document_search=None,
          get_openai_embedding_function=None)
    spec = importlib.util.spec_from_file_location("chroma_base_evaluation", REFERENCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def metadatas(docs: Any, starts: Any, ends: Any) -> list[dict[str, Any]]:
    """Chunks as the official code's chromadb metadata."""
    return [{"corpus_id": d, "start_index": int(s), "end_index": int(e)}
            for d, s, e in zip(docs, starts, ends)]


def scores(questions_csv: Path, chunks: list[dict[str, Any]],
           rankings: list[list[dict[str, Any]]] | None = None,
           k: int = 0) -> dict[str, list[float]]:
    """The official per-question values: precision_omega of ``chunks``, and recall, precision
    and IoU of each question's ``rankings`` at ``k``."""
    evaluation = official().BaseEvaluation(str(questions_csv))
    omega, _ = evaluation._full_precision_score(chunks)
    if rankings is None:
        return {"chroma_P_omega": omega}
    iou, recall, precision = evaluation._scores_from_dataset_and_retrievals(
        rankings, [k] * len(rankings))
    return {"chroma_P_omega": omega, f"chroma_R@{k}": recall, f"chroma_P@{k}": precision,
            f"chroma_IoU@{k}": iou}
