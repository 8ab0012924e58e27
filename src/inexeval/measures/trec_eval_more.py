"""trec_eval 10.0's later additions, kept beside :mod:`inexeval.measures.trec_eval` (whose
table lists them): ``yaap`` (``m_yaap.c``) and ``-Z``, the values as z-scores against a file
of means and standard deviations (``convert_zscores.c``).

yaap is Robertson's "yet another average precision" (S. Robertson, "On smoothing average
precision", ECIR 2012, LNCS 7224, pp. 158-169): with S the sum, over the relevant documents
retrieved, of the precision at each, ``log((1 + S) / (1 + R - S))``, R the number of relevant
documents; it is monotonic with average precision on one topic and finite where AP is 0 or 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # trec_eval's table imports this module's measures
    from inexeval.measures.trec_eval import Chosen, Floats, Lists

MISSING_ZSCORE = -1000000.0
"""What trec_eval prints for a value whose topic or measure the z-score file lacks."""


def yaap(ls: Lists, chosen: Chosen) -> Floats:
    """``log((1 + S) / (1 + R - S))``, S added left to right as ``m_yaap.c`` adds."""
    from inexeval.measures.trec_eval import _ap_terms, _row_sums

    total = _row_sums(_ap_terms(ls))
    values = [math.log((1.0 + s) / (1.0 + r - s))
              for s, r in zip(total.tolist(), ls.num_rel.tolist())]
    return np.array(values, dtype=np.float64).reshape(-1, 1)


def as_zscores(topics: list[str], labels: tuple[str, ...], values: Floats,
               zscores: Mapping[str, Mapping[str, tuple[float, float]]]) -> Floats:
    """A measure's values (``values[t, j]``, topic t, label j) as trec_eval's ``-Z`` makes
    them, topic by topic before they are averaged: ``(value - mean) / sd`` with the topic's and
    label's mean and sd from ``zscores`` (:func:`inexeval.formats.trec_zscores.read_zscores`);
    an sd of 0 gives 0 if the value is the mean; a topic or label the file lacks, or an sd of 0
    with another value, gives -1000000. A topic's value of ``gm_map`` and ``gm_bpref`` is the
    logarithm they average, and is scored as it is (as trec_eval does)."""
    out = values.copy()
    for t, topic in enumerate(topics):
        known = zscores.get(topic, {})
        for j, label in enumerate(labels):
            value = float(values[t, j])
            pair = known.get(label)
            if pair is None:
                score = MISSING_ZSCORE
            elif pair[1]:
                score = (value - pair[0]) / pair[1]
            else:
                score = 0.0 if value == pair[0] else MISSING_ZSCORE
            out[t, j] = score
    return out
