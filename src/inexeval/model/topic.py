"""A topic: its id, type and the fields the measures may need."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Topic:
    """One topic of a topic file.

    ``query_type`` is ``CO``, ``CAS``, ``CO+S`` or empty; ``target_elements`` holds the target
    paths or element types of a CAS topic (INEX 2002 ``<te>``; the last step of a NEXI title),
    which switch implicit assessments off (spec §1.6).
    """

    topic_id: str
    query_type: str = ""
    title: str = ""
    castitle: str = ""
    description: str = ""
    narrative: str = ""
    keywords: str = ""
    target_elements: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)
