"""trec_eval's measure names in ``inexeval eval`` on TREC qrels: a ``-m`` argument that
trec_eval reads (``map``, ``P.5,10``, ``ndcg_cut.10``, ``recall``; also a name as trec_eval prints it, ``P_10``) is computed by the
registry's family (``AP``, ``P@k``, ``nDCG@k``, ``R@k``) and printed under the name trec_eval
prints (``map``, ``P_5``, ``P_10``, ``ndcg_cut_10``, ``recall_5`` ... ``recall_1000``);
inexeval's own names (``AP``, ``P@10``, ``nDCG@10``) are left as they are.

trec_eval's ``-m`` grammar is read by :func:`inexeval.measures.trec_eval.choose` (one parser
for both commands), so a bare family expands to trec_eval's default cut-offs here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from inexeval.errors import MeasureError

SINGLE = {"map": "AP", "Rprec": "R-Prec", "bpref": "bpref", "recip_rank": "RR",
          "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
          "ndcg": "nDCG"}
"""trec_eval's measures without parameters that the registry computes, with its names."""

CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG"}
"""trec_eval's cut-off families that the registry computes (``P_10`` is ``P@10``)."""

_CUT_LABEL = re.compile(r"^([A-Za-z_]+)_([1-9][0-9]*)$")


@dataclass
class Requests:
    """``eval``'s ``-m`` arguments made registry names (``measures``), and the name each
    measure is printed under when it was asked for by a trec_eval name (``labels``: the
    canonical name, as the results' rows hold it, to trec_eval's)."""

    measures: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)


def trec_eval_requests(texts: Iterable[str]) -> Requests:
    """The registry's names and trec_eval's labels of ``-m`` arguments on TREC qrels (see the
    module); an argument that is no trec_eval name passes through unchanged. A trec_eval name
    the registry does not compute (``gm_map``, ``infAP``, ``success.1``) is an error pointing
    at ``inexeval trec_eval``, which computes them all."""
    from inexeval.measures.registry import canonical_name
    from inexeval.measures.trec_eval import choose

    out = Requests()
    for text in texts:
        printed = _CUT_LABEL.match(text.strip())
        if printed is not None and printed.group(1) in CUT:  # P_10: trec_eval's printed name
            measure = f"{CUT[printed.group(1)]}@{printed.group(2)}"
            out.measures.append(measure)
            out.labels.setdefault(canonical_name(measure), text.strip())
            continue
        try:
            chosen = choose([text.strip()])
        except MeasureError:
            out.measures.append(text)
            out.labels.setdefault(canonical_name(text), canonical_name(text))
            continue
        for c in chosen:
            name = c.definition.name
            if name in SINGLE and not c.pairs:
                pairs = [(SINGLE[name], c.labels[0])]
            elif name in CUT:
                pairs = [(f"{CUT[name]}@{int(k)}", label)
                         for k, label in zip(c.values, c.labels)]
            else:
                raise MeasureError(
                    f"{text!r}: trec_eval's {c.labels[0]!r} is computed by 'inexeval trec_eval' "
                    f"(inexeval eval computes {', '.join([*SINGLE, *CUT])} under trec_eval's "
                    "names)")
            for measure, label in pairs:
                out.measures.append(measure)
                out.labels.setdefault(canonical_name(measure), label)
    return out
