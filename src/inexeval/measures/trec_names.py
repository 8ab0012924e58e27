"""trec_eval's measure names on TREC qrels, in every command: a ``-m`` argument that trec_eval
reads (``map``, ``P.5,10``, ``ndcg_cut.10``, ``infAP``, ``set_F.0.5``, ``official``,
``all_trec``; also a name as trec_eval prints it, ``P_10``) is the registry's measure that
trec_eval's code computes (:mod:`inexeval.measures.trec`: ``AP``, ``P@k``, ``nDCG@k``,
``infAP``, ``SetF(beta=0.5)``) and is printed under the name trec_eval prints (``map``,
``P_5``, ``P_10``, ``ndcg_cut_10``, ``set_F_0.5``); any other name (inexeval's, ir_measures')
is printed as typed. ``rel`` (trec_eval's ``-l``) is given to every measure that takes it
and does not set it.

trec_eval's ``-m`` grammar is read by :func:`inexeval.measures.trec_eval.choose` (one parser
for both commands), so a bare family expands to trec_eval's default cut-offs here too.
``runid`` and ``num_q`` are printed by every layout already; ``relstring`` (a string per
topic) only by ``inexeval trec_eval``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from inexeval.errors import MeasureError

NOT_MEASURES = ("runid", "num_q", "relstring")
"""trec_eval's names that are no per-topic number."""

_CUT_LABEL = re.compile(r"^([A-Za-z_]+)_([1-9][0-9]*)$")


@dataclass
class Requests:
    """``-m`` arguments made registry names (``measures``), and the name each measure is
    printed under (``labels``: the canonical name, as the results' rows hold it, to the name
    typed or trec_eval's); ``extras``: trec_eval's names that are no measure, asked for."""

    measures: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    extras: list[str] = field(default_factory=list)


def _families() -> tuple[dict[str, str], dict[str, str]]:
    """The registry family of each trec_eval measure without a cut-off and with one."""
    import inexeval.measures.cutoff  # noqa: F401  (P, and the document families)
    from inexeval.measures.registry import REGISTRY
    from inexeval.measures.trec import SPECS

    plain: dict[str, str] = {}
    cut: dict[str, str] = {"P": "P"}
    for name, spec in SPECS.items():
        aliases = REGISTRY[name].aliases
        for table, measure in ((plain, spec.plain), (cut, spec.cut)):
            if measure is not None and (measure not in table or measure in aliases):
                table[measure] = name
    cut.pop("recip_rank", None)
    return plain, cut


def registry_measures(chosen: Any) -> list[tuple[str, str]]:
    """The registry's measures of one trec_eval measure with its parameters
    (:class:`~inexeval.measures.trec_eval.Chosen`), each with the label trec_eval prints."""
    plain, cut = _families()
    d = chosen.definition
    if d.name in NOT_MEASURES:
        return []
    if d.kind in ("cutoffs", "levels"):
        return [(f"{cut[d.name]}@{int(v) if d.kind == 'cutoffs' else repr(v)}", label)
                for v, label in zip(chosen.values, chosen.labels)]
    family = plain[d.name]
    params: dict[str, Any] = {}
    if d.kind == "values" and chosen.values != d.default:
        if d.name == "set_F":
            params["beta"] = chosen.values[0]
        elif d.name == "utility":
            params.update(zip("abcd", chosen.values))
        else:
            params["levels"] = ",".join(map(repr, chosen.values))
    if d.kind == "pairs" and chosen.pairs:
        gains = [f"{k}={v!r}" for k, v in chosen.pairs if k != "p"]
        if gains:
            params["gains"] = ",".join(gains)
        params.update((k, v) for k, v in chosen.pairs if k == "p" and d.name.startswith("rbp"))
    shown = ",".join(f"{k}={v!r}" for k, v in params.items())
    return [(f"{family}({shown})" if shown else family, chosen.labels[0])]


def trec_eval_requests(texts: Iterable[Any], relevance_level: int = 1) -> Requests:
    """The registry's names and the printed labels of ``-m`` arguments on TREC qrels (see the
    module); ``relevance_level``: ``-l``. A measure object (ir_measures' or inexeval's) is
    taken as it is."""
    from inexeval.measures.registry import Measure, canonical_name, parse_measures
    from inexeval.measures.trec_eval import BY_NAME, choose, choose_definition, knows

    out = Requests()
    seen: set[str] = set()
    # a trec_eval measure's parameters are those of its first -m that gives any (P.5 then
    # P.10 is P_5 alone; all_trec with P.5,7 has P_5 and P_7), as in trec_eval
    first: dict[str, str] = {}
    texts = list(texts)
    for text in texts:
        if isinstance(text, str):
            name, dot, params = text.strip().partition(".")
            if dot and params and name in BY_NAME:
                first.setdefault(name, params)

    def add(measure: Any, label: str | None) -> None:
        if relevance_level != 1:
            parsed = parse_measures([measure])[0]
            if parsed.family.param("rel") is not None and "rel=" not in str(measure):
                measure = parsed(rel=relevance_level)
        name = canonical_name(measure) if isinstance(measure, str) else str(measure)
        if name in seen:  # asked twice (map and AP, or P.5 given again by P.10)
            return
        seen.add(name)
        out.measures.append(measure if isinstance(measure, str) else str(measure))
        out.labels.setdefault(name, label or name)

    for text in texts:
        if isinstance(text, Measure) or not isinstance(text, str):
            add(text, None)
            continue
        typed = text.strip()
        printed = _CUT_LABEL.match(typed)
        _, cut = _families()
        if printed is not None and printed.group(1) in cut:  # P_10: trec_eval's printed name
            add(f"{cut[printed.group(1)]}@{printed.group(2)}", typed)
            continue
        if not knows(typed):  # an inexeval or ir_measures name (AP, P@10)
            add(text, typed)
            continue
        # trec_eval's name with parameters it refuses (ndcg.2, ndcg.1,3: not name=value
        # pairs): an error, as in trec_eval and inexeval trec_eval, not read as the registry
        # reads the text (nDCG@2; nDCG@1 and nDCG@3)
        name, dot, params = typed.partition(".")
        if dot and params and first.get(name, params) != params:
            typed = name  # trec_eval reads only the first -m's parameters (-m G.1=2 -m G.0.5)
        chosen = choose([typed])
        if typed.partition(".")[0] == "relstring":
            raise MeasureError(f"{typed!r}: trec_eval's relstring is text, not a number: "
                               "'inexeval trec_eval -q -m relstring' prints it")
        for c in chosen:
            given = first.get(c.definition.name)
            if given is not None:
                c = choose_definition(c.definition, given)
            if c.definition.name in NOT_MEASURES:
                out.extras.append(c.definition.name)
            for measure, label in registry_measures(c):
                add(measure, label)
    return out
