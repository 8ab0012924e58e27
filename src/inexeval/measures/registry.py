"""The measure registry and the measure-name grammar.

A measure family (``P``, ``overlap``, ``inex_eval`` ...) is registered once with its typed
parameters and a kernel. A :class:`Measure` is a family with parameter values and an optional
cut-off, named by the ir_measures grammar ``NAME(param=value,...)@cutoff`` (``NAME[cutoff]`` is
accepted too, as in the official ``iP[0.01]``). ``str(measure)`` is the canonical name: parameters
equal to their default are left out.

A kernel receives one topic's assessments and run, a :class:`TopicContext`, the parameter values
and *all* the cut-offs requested for that family and those parameters, and returns one value per
cut-off, so that shared work (sorting, cumulative sums) is done once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inexeval.errors import MeasureError

Value = float | None
"""A measure value; None means undefined for the topic (excluded from the mean)."""


@dataclass(frozen=True)
class Param:
    """A typed parameter of a measure family."""

    name: str
    kind: type
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], None] | None = None
    """Raises :class:`MeasureError` for a value of the right type that is not valid."""

    def convert(self, value: Any) -> Any:
        if self.kind is bool and isinstance(value, str):
            if value.lower() in ("true", "1", "yes"):
                return True
            if value.lower() in ("false", "0", "no"):
                return False
            raise ValueError(value)
        if self.kind is str:
            value = str(value)
        elif self.kind is float and isinstance(value, (int, float, str)) and not isinstance(
            value, bool
        ):
            value = float(value)
        elif self.kind is int and isinstance(value, (int, str)) and not isinstance(value, bool):
            value = int(value)
        if not isinstance(value, self.kind):
            raise TypeError(value)
        return value


@dataclass
class TopicContext:
    """What a kernel may use besides the topic's assessments and run: the collection index,
    the number of documents of the collection, a per-(run, topic) memo for work shared by the
    families of one topic, and ``shared``, a memo kept by the evaluator across runs and topics
    (e.g. the element table of :mod:`inexeval.measures.common`)."""

    collection: Any = None
    num_docs: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)
    shared: dict[Any, Any] = field(default_factory=dict)

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per run and topic."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def shared_cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per evaluator (for work that depends only on the topic's
        assessments, keyed by them)."""
        if key not in self.shared:
            self.shared[key] = make()
        return self.shared[key]


Kernel = Callable[[Any, Any, TopicContext, Mapping[str, Any], Sequence[Any]], Sequence[Value]]


@dataclass(frozen=True)
class Family:
    """A registered measure family."""

    name: str
    description: str
    kernel: Kernel
    params: tuple[Param, ...] = ()
    cutoff: type | None = None
    cutoff_required: bool = False
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean"
    scales: tuple[str, ...] | None = None
    bracket_cutoff: bool = False
    cutoff_range: tuple[float, float] | None = None
    """Inclusive bounds of a float cut-off (an int cut-off must be at least 1)."""
    scores_empty: bool = False
    """The kernel scores a topic without results itself (else the evaluator gives it 0)."""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Measure:
    """A family with parameter values and a cut-off; ``str()`` is its canonical name."""

    family: Family
    params: tuple[tuple[str, Any], ...]
    cutoff: Any = None

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def settings(self) -> dict[str, Any]:
        values = {p.name: p.default for p in self.family.params}
        values.update(self.params)
        return values

    def __matmul__(self, cutoff: Any) -> Measure:
        """``measure @ cutoff`` as in ir_measures: ``iP @ 0.01`` is ``iP[0.01]``."""
        return parse_measure(f"{self.without_cutoff()}@{cutoff!r}")

    def __call__(self, **params: Any) -> Measure:
        """The measure with parameters set: ``P(quant="generalised") @ 10``."""
        settings = {**dict(self.params), **params}
        shown = ",".join(f"{k}={v!r}" for k, v in settings.items())
        cut = "" if self.cutoff is None else f"@{self.cutoff!r}"
        return parse_measure(f"{self.family.name}({shown}){cut}", partial=True)

    def __repr__(self) -> str:
        return str(self)

    def without_cutoff(self) -> str:
        """The name with parameters but no cut-off."""
        text = str(self)
        return text if self.cutoff is None else text[:text.rindex("[" if self.family.bracket_cutoff
                                                                  else "@")]

    def __str__(self) -> str:
        text = self.family.name
        shown = [(k, v) for k, v in self.params if v != self.family.param(k).default]  # type: ignore[union-attr]
        if shown:
            text += "(" + ",".join(
                f"{k}={v!r}" if isinstance(v, float) or (
                    isinstance(v, str) and not _BARE_WORD.fullmatch(v)) else f"{k}={v}"
                for k, v in shown) + ")"
        if self.cutoff is not None:
            cut = _show(self.cutoff)
            text += f"[{cut}]" if self.family.bracket_cutoff else f"@{cut}"
        return text


_KIND_WORDS: dict[type, str] = {int: "an integer", float: "a number", str: "a word",
                                bool: "true or false"}
"""A parameter's or cut-off's type in the words of a message."""


def _kind_words(kind: type) -> str:
    return _KIND_WORDS.get(kind, f"a {kind.__name__}")


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if round(value, 2) == value and value < 1.0001 else repr(value)
    return str(value)


FAMILY_MODULES = ("bioasq", "chroma", "cutoff", "eprum", "focused", "genomics", "hixeval",
                  "legalbench", "ng", "precall", "sampled", "trec", "xcg")
"""Modules of :mod:`inexeval.measures` that register the built-in families."""

DOCUMENT_NAMES = frozenset({
    "AP", "map", "map_cut", "gm_map", "R-Prec", "Rprec", "bpref", "Bpref", "gm_bpref", "RR",
    "recip_rank", "IPrec", "iprec_at_recall", "R", "recall", "infAP", "Rprec_mult", "utility",
    "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "nDCG", "ndcg", "ndcg_cut", "ndcg_rel", "Rndcg",
    "relative_P", "Success", "success", "SetP", "set_P", "SetRelP", "set_relative_P", "SetR",
    "set_recall", "SetAP", "set_map", "SetF", "set_F", "yaap", "RBP", "rbp", "rbp_resid", "unj",
    "num_ret", "NumRet", "num_rel", "NumRel", "num_rel_ret", "NumRelRet",
    "num_nonrel_judged_ret", "Judged", "P"})
"""The names (and aliases) of the TREC document families (:mod:`inexeval.measures.trec`, and
``P`` of :mod:`inexeval.measures.cutoff`, which imports it): a name among them is parsed
without importing the other families' modules (and lxml, the collection code), so that
``eval`` and the API start at once on TREC qrels (a test checks the set against the
registry)."""


REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to the registry (under its name and aliases) and return it."""
    for name in (family.name, *family.aliases):
        if name in REGISTRY and REGISTRY[name] is not family:
            raise ValueError(f"measure name {name!r} registered twice")
        REGISTRY[name] = family
    return family


def families() -> list[Family]:
    """Every registered family once, in name order."""
    _load_builtin()
    seen: dict[int, Family] = {}
    for family in REGISTRY.values():
        seen.setdefault(id(family), family)
    return sorted(seen.values(), key=lambda f: f.name.lower())


_NAME = re.compile(
    r"^\s*(?P<name>[A-Za-z_][\w\-]*|11pt_avg)\s*(?:\((?P<params>.*)\))?\s*"
    r"(?:@\s*(?P<at>[^\s@\[\]]+)|\[\s*(?P<bracket>[^\]]+?)\s*\])?\s*$"
)


_BARE_WORD = re.compile(r"[A-Za-z_][\w\-]*")
"""A parameter's value written without quotes."""

_BARE_VALUE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w\-]*)(?=\s*(?:,|$))")


def _load_builtin() -> None:
    from importlib import import_module

    for name in FAMILY_MODULES:
        import_module(f"inexeval.measures.{name}")


def _load_for(name: str) -> None:
    """Register the family ``name`` (or a trec_eval-style ``name_k``) would name: only the
    document families' modules for one of theirs
    (:data:`DOCUMENT_NAMES`), every built-in family else."""
    if name in REGISTRY:
        return
    match = _TREC_EVAL_CUTOFF.match(name)
    if name in DOCUMENT_NAMES or (match is not None and match.group("name") in DOCUMENT_NAMES):
        from importlib import import_module

        import_module("inexeval.measures.cutoff")  # and the document families, which it uses
    else:
        _load_builtin()


def parse_measure(text: str, partial: bool = False) -> Measure:
    """Parse one measure name; raises :class:`MeasureError` naming every problem in it.
    ``partial``: a family that needs a cut-off may come without one (to be given with ``@``)."""
    problems: list[str] = []
    measure = _parse_one(text, problems, partial)
    if measure is None or problems:
        raise MeasureError("; ".join(problems))
    return measure


def parse_measures(texts: Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names; every problem of every name is reported in one :class:`MeasureError`."""
    measures: list[Measure] = []
    problems: list[str] = []
    for text in texts:
        if isinstance(text, Measure):
            if text.cutoff is None and text.family.cutoff_required:
                problems.append(f"{text.family.name} needs a cut-off, e.g. "
                                f"{syntax(text.family, example=True)}")
            measures.append(text)
            continue
        for one in _trec_eval_dotted(text):
            measure = _parse_one(one, problems)
            if measure is not None:
                measures.append(measure)
    if problems:
        raise MeasureError("; ".join(problems))
    return measures


_TREC_EVAL_DOTTED = re.compile(
    r"^\s*(?P<name>[A-Za-z][\w\-]*)\.(?P<cutoffs>[0-9]+(?:,[0-9]+)*)\s*$")
"""trec_eval's ``-m name.k1,k2`` (``P.5,10,20``, ``ndcg_cut.10``, ``recall.100``)."""


def _trec_eval_dotted(text: str) -> list[str]:
    """trec_eval's dotted ``-m`` syntax as trec_eval's names, one a cut-off (``P.5,10`` ->
    ``P_5``, ``P_10``) when the name is a family with integer cut-offs; else ``[text]``."""
    match = _TREC_EVAL_DOTTED.match(text)
    if match is None:
        return [text]
    _load_for(match.group("name"))
    family = REGISTRY.get(match.group("name"))
    if family is None or family.cutoff is not int:
        return [text]
    return [f"{match.group('name')}_{k}" for k in match.group("cutoffs").split(",")]


_IR_MEASURES_ELSEWHERE = {
    "ERR": "ir_measures' ERR is the expected reciprocal rank (Chapelle et al. 2009); "
           "inexeval's ERR is INEX's expected ratio of relevant units",
    "NumQ": "the number of topics is num_q, printed with every evaluation",
}
"""ir_measures' names that are another measure here, or no measure."""


def is_ir_measure(value: Any) -> bool:
    """Whether ``value`` is one of ir_measures' measure objects."""
    return type(value).__module__.startswith("ir_measures")


def from_ir_measures(measure: Any) -> str:
    """Our name of an ir_measures measure object (``AP@10``, ``P(rel=2)@5``, ``SetP``,
    ``IPrec@0.5``, ``infAP``, ``Judged@10``): its name read by our grammar, which takes
    ir_measures' names (see the table in docs/guides/trec.md); ``RBP`` at ir_measures' default persistence
    0.8, ``NumRet(rel=k)`` (ir_measures' ``NumRelRet``) as ``num_rel_ret(rel=k)``. One without
    a counterpart here (``alpha_nDCG``, ``ERR_IA``, ``ERR``, a parameter we do not have) is an
    error naming it."""
    name = getattr(measure, "NAME", "")
    params = dict(getattr(measure, "params", {}) or {})
    text = str(measure)
    if name in _IR_MEASURES_ELSEWHERE:
        raise MeasureError(f"ir_measures' {measure} has no counterpart in inexeval "
                           f"({_IR_MEASURES_ELSEWHERE[name]})")
    if name == "RBP" and "p" not in params:
        text = "RBP(p=0.8" + "".join(f",{k}={v!r}" for k, v in params.items()) + ")"
    elif name == "NumRet" and params.get("rel") is not None:
        text = f"num_rel_ret(rel={params['rel']!r})"
    try:
        return str(parse_measure(text))
    except MeasureError as error:
        raise MeasureError(f"ir_measures' {measure} has no counterpart in inexeval "
                           f"({error.reason}; see `inexeval measures`)") from None


def canonical_name(name: str) -> str:
    """The name a measure's values are listed under everywhere (rows, notes, CSV, JSON): its
    canonical ``repr``, aliases resolved and parameters at their defaults left out
    (``inex_eval(quant=strict)`` -> ``inex_eval``, ``P_10`` -> ``P@10``); a name that is no
    measure (``num_q``, ``ircl_prn.0.10``) as it is."""
    try:
        return str(parse_measures([name])[0])
    except MeasureError:
        return name


def aggregate_of(name: str) -> str:
    """How a measure's per-topic values make its ``all`` value: ``mean``, ``sum`` or ``gm``
    (the values are logarithms and the ``all`` value the exponential of their mean:
    trec_eval's ``gm_map``, ``gm_bpref``); ``mean`` for a name that is no measure."""
    try:
        return parse_measures([name])[0].family.aggregate
    except MeasureError:
        return "mean"


_TREC_EVAL_CUTOFF = re.compile(r"^(?P<name>[A-Za-z][\w\-]*?)_(?P<cutoff>\d+)$")
"""trec_eval's ``name_k`` (``P_10``, ``recall_100``, ``ndcg_cut_10``) for ``name@k``."""


def _family(name: str) -> tuple[Family | None, str | None]:
    """The family a name denotes, and the cut-off of a trec_eval-style ``name_k``."""
    family = REGISTRY.get(name)
    if family is not None:
        return family, None
    match = _TREC_EVAL_CUTOFF.match(name)
    if match is not None:
        family = REGISTRY.get(match.group("name"))
        if family is not None and family.cutoff is int:
            return family, match.group("cutoff")
    return None, None


def _suggest_measure(name: str, text: str) -> str:
    """`` (did you mean ...?)`` for an unknown measure name: a name equal but for case (the
    family, also through an alias: ``MAP`` is ``AP``), else the closest names by spelling,
    compared in lower case; the rest of ``text`` (cut-off, parameters) is kept."""
    _load_builtin()
    by_lower: dict[str, list[str]] = {}
    for known, family in REGISTRY.items():
        targets = by_lower.setdefault(known.lower(), [])
        if family.name not in targets:
            targets.append(family.name)
    rest = text.strip()[len(name):]
    trec_eval_style = _TREC_EVAL_CUTOFF.match(name)
    if name.lower() not in by_lower and trec_eval_style is not None:
        name, rest = trec_eval_style.group("name"), "@" + trec_eval_style.group("cutoff") + rest
    import difflib

    found = by_lower.get(name.lower()) or [
        target for close in difflib.get_close_matches(name.lower(), by_lower, n=1, cutoff=0.6)
        for target in by_lower[close]]
    if not found:
        return ""
    shown = " or ".join(repr(f + rest) for f in sorted(set(found)))  # not registration order
    return f" (did you mean {shown}?)"


def _nearest(word: str, options: Iterable[str]) -> str:
    import difflib

    options = list(options)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.4)
    if not close:
        lowered = {o.lower(): o for o in options}
        close = [lowered[word.lower()]] if word.lower() in lowered else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def _parse_one(text: str, problems: list[str], partial: bool = False) -> Measure | None:
    match = _NAME.match(text)
    if match is None:
        problems.append(f"cannot read measure name {text!r} (expected NAME(param=value,...)@cutoff)")
        return None
    _load_for(match.group("name"))
    family, trec_cutoff = _family(match.group("name"))
    if family is None:
        problems.append(f"unknown measure {match.group('name')!r}"
                        f"{_suggest_measure(match.group('name'), text)}")
        return None
    params: dict[str, Any] = {}
    if match.group("params") and match.group("params").strip():
        # bare words may hold dashes or keywords (task=best-in-context): quote them first
        quoted = _BARE_VALUE.sub(lambda m: f"{m.group(1)}={m.group(2)!r}",
                                 match.group("params"))
        try:
            call = ast.parse(f"f({quoted})", mode="eval").body
        except SyntaxError:
            problems.append(f"cannot read the parameters of {text!r}")
            return None
        assert isinstance(call, ast.Call)
        if call.args:
            problems.append(f"{text!r}: parameters must be given as name=value")
        seen: set[str] = set()
        for keyword in call.keywords:
            name = keyword.arg or ""
            if name in seen:
                problems.append(f"{text!r} gives {name} twice")
                continue
            seen.add(name)
            param = family.param(name)
            if param is None:
                problems.append(
                    f"{family.name} has no parameter {name!r}"
                    f"{_nearest(name, [p.name for p in family.params])}"
                )
                continue
            node = keyword.value
            raw: Any = node.id if isinstance(node, ast.Name) else None
            if raw is None:
                try:
                    raw = ast.literal_eval(node)
                except ValueError:
                    raw = ast.unparse(node)
            try:
                value = param.convert(raw)
            except (ValueError, TypeError):
                problems.append(f"{family.name}: {name}={raw!r} is not {_kind_words(param.kind)}")
                continue
            if param.choices is not None and value not in param.choices:
                choices = [str(c) for c in param.choices]
                problems.append(
                    f"{family.name}: {name}={value!r} is not one of {', '.join(choices)}"
                    f"{_nearest(str(value), choices)}"
                )
                continue
            if param.check is not None:
                try:
                    param.check(value)
                except MeasureError as error:
                    problems.append(f"{family.name} {name}: {error.reason}")
                    continue
            params[name] = value
    cut_text = match.group("at") or match.group("bracket") or trec_cutoff
    cutoff: Any = None
    if cut_text is not None:
        if family.cutoff is None:
            problems.append(f"{family.name} takes no cut-off")
            return None
        try:
            cutoff = family.cutoff(cut_text)
        except ValueError:
            problems.append(f"{family.name}: cut-off {cut_text!r} is not "
                            f"{_kind_words(family.cutoff)}")
            return None
        low, high = family.cutoff_range or ((1, float("inf")) if family.cutoff is int else (0, 1))
        if not low <= cutoff <= high:
            problems.append(
                f"{family.name}: cut-off {cut_text!r} is out of range (from {low} to {high})"
            )
            return None
    elif family.cutoff_required and not partial:
        problems.append(f"{family.name} needs a cut-off, e.g. {syntax(family, example=True)}")
        return None
    ordered = tuple((p.name, params.get(p.name, p.default)) for p in family.params)
    return Measure(family, ordered, cutoff)


# What ``inexeval measures`` shows: each family's group, one line and examples.

SCALE_NAMES = {
    "inex2002": "INEX 2002",
    "inex2003": "INEX 2003-2004",
    "inex2005": "INEX 2005-2008",
    "fol": "FOL passage qrels (INEX 2007-2010, TREC Genomics 2007)",
    "trec": "TREC document qrels",
    "bioasq": "BioASQ task B golden JSON (snippets)",
}
"""The kinds of assessments, by the scale name their readers give them (in the campaigns'
order), in the words of the campaigns."""

_INEX_YEARS = {"inex2002": ("2002", "2002"), "inex2003": ("2003", "2004"),
               "inex2005": ("2005", "2008")}

ANY_ASSESSMENTS = "Any assessments (through a quantisation, quant=)"


@dataclass(frozen=True)
class About:
    """How ``inexeval measures`` presents a family: a summary of a few words, the source it
    follows (paper, section and equation, or the tool whose numbers it gives) and examples of
    valid names (a test parses every one)."""

    summary: str
    source: str
    examples: tuple[str, ...]


_HM = "Hiemstra and Mihajlović 2005"
_XCG = f"{_HM}, eqs. 13-14"
_KAMPS = "Kamps et al. 2007"
_OFFICIAL = "inex_eval 3.1"
_TREC_EVAL = "trec_eval 10.0"
_PD = "Piwowarski and Dupret 2006"
_HIXEVAL = "Pehcevski and Thom 2005; Pehcevski 2006, §4.2"

ABOUT: dict[str, About] = {
    "P": About("precision at rank k under a quantisation", f"{_HM}, §3",
               ("P@10", "P(quant=generalised)@5", "P(quant=e3s321)@20")),
    "overlap": About("share of the top k nested with another result of the top k",
                     f"{_HM}, eq. 17", ("overlap@10",)),
    "inex_eval": About("precision at recall x by expected search length, or the mean", "Gövert and Kazai 2002, eqs. 4-7",
                       ("inex_eval", "inex_eval(quant=generalised)", "inex_eval@0.5")),
    "inex_eval_ng": About("overlap-aware precision at recall x, or the mean",
                          f"{_HM}, eqs. 5-7",
                          ("inex_eval_ng", "inex_eval_ng(overlap=ignored)@0.5")),
    "xCG": About("extended cumulated gain at rank k", _XCG, ("xCG@10",)),
    "nxCG": About("normalised extended cumulated gain at rank k", _XCG,
                  ("nxCG@10", "nxCG(quant=generalised)@25")),
    "MAnxCG": About("mean of nxCG at ranks 1..k (1500 without a cut-off)", _XCG,
                    ("MAnxCG", "MAnxCG@50")),
    "ep": About("interpolated effort-precision at gain-recall x", _XCG,
                ("ep@0.5", "ep(quant=generalised)@0.25")),
    "MAep": About("mean average effort-precision, INEX 2005-2006's measure", _XCG,
                  ("MAep", "MAep(quant=generalised)")),
    "HiXEval_P": About("precision of highlighted text in k results (or all)",
                       _HIXEVAL,
                       ("HiXEval_P", "HiXEval_P@10")),
    "HiXEval_R": About("recall of highlighted text in k results (or all)",
                       _HIXEVAL,
                       ("HiXEval_R", "HiXEval_R@10")),
    "HiXEval_F": About("F of HiXEval_P and HiXEval_R",
                       _HIXEVAL,
                       ("HiXEval_F", "HiXEval_F(alpha=0)@10")),
    "EPRUM": About("precision at recall x of a navigating user, or the mean",
                   f"{_PD}, eqs. 4-5", ("EPRUM", "EPRUM@0.5", "EPRUM(nav=classical)")),
    "EPRUM_P": About("EPRUM precision at rank k", f"{_PD}, §8", ("EPRUM_P@10",)),
    "PRUM": About("precision-recall with user modelling at recall x, or the mean",
                  "Piwowarski, Gallinari and Dupret 2007", ("PRUM", "PRUM@0.5")),
    "T2I": About("EPRUM of a reader who stops after N irrelevant characters", f"de Vries, Kazai and Lalmas 2004; {_PD}, §7",
                 ("T2I(tolerance=300)", "T2I(tolerance=300)@0.5")),
    "GR": About("100 x the expected share of relevant units seen by rank k",
                "Lehtonen 2006, §7.3.3", ("GR@10",)),
    "ERR": About("expected ratio of relevant units seen by rank k: GR / 100",
                 f"{_HM}, eq. 15", ("ERR@10", "ERR(nav=classical)@20")),
    "iP": About("interpolated precision at recall level x", f"{_KAMPS}; {_OFFICIAL}",
                ("iP[0.01]", "iP(task=thorough)[0.10]")),
    "MAiP": About("mean average interpolated precision (per topic: AiP)",
                  f"{_KAMPS}; {_OFFICIAL}", ("MAiP", "MAiP(task=thorough)")),
    "gP": About("generalised precision at article rank k",
                f"{_KAMPS}; {_OFFICIAL}", ("gP[10]", "gP(task=best-in-context)[5]")),
    "gR": About("generalised recall at article rank k",
                f"{_KAMPS}; {_OFFICIAL}", ("gR[10]", "gR(task=best-in-context)[25]")),
    "MAgP": About("mean average generalised precision (per topic: AgP)", f"{_KAMPS}; {_OFFICIAL}",
                  ("MAgP", "MAgP(task=best-in-context)", "MAgP(task=t2i,irr=300)")),
    "art_prec": About("article precision of the whole list", _OFFICIAL,
                      ("art_prec", "art_prec(task=thorough)")),
    "art_rec": About("article recall of the whole list", _OFFICIAL, ("art_rec",)),
    "art_f1": About("article F1 of the whole list", _OFFICIAL, ("art_f1",)),
    "char_prec": About("character precision of the whole list", _OFFICIAL,
                       ("char_prec", "char_prec(task=thorough)")),
    "char_rec": About("character recall of the whole list", _OFFICIAL, ("char_rec",)),
    "char_f1": About("character F1 of the whole list", _OFFICIAL, ("char_f1",)),
    "passage2_AP": About("precision at each relevant character (mean: Passage2 MAP)", "Hersh et al. 2007", ("passage2_AP",)),
    "aspect_AP": About("aspect average precision (mean: Aspect MAP)", "Hersh et al. 2007",
                       ("aspect_AP",)),
    "AP": About("average precision (at k: of the top k)", _TREC_EVAL,
                ("AP", "AP(rel=2)", "AP@10")),
    "infAP": About("inferred average precision", f"Yilmaz and Aslam 2006; {_TREC_EVAL}",
                   ("infAP", "infAP(rel=2)")),
    "IPrec": About("interpolated precision at recall level x", _TREC_EVAL, ("IPrec@0.5",)),
    "SetP": About("precision of the whole list", _TREC_EVAL, ("SetP", "SetP(rel=2)")),
    "SetF": About("F measure of the whole list", _TREC_EVAL, ("SetF", "SetF(beta=0.5)")),
    "R": About("recall at rank k (without a cut-off: of the whole list)", _TREC_EVAL,
               ("R@100", "R")),
    "R-Prec": About("precision at rank R, R the number of relevant documents", _TREC_EVAL,
                    ("R-Prec",)),
    "RR": About("reciprocal rank of the first relevant document",
                _TREC_EVAL, ("RR", "RR@10")),
    "nDCG": About("normalised discounted cumulated gain at rank k",
                  f"Järvelin and Kekäläinen 2002; {_TREC_EVAL}", ("nDCG@10", "nDCG")),
    "bpref": About("binary preference over the judged documents",
                   f"Buckley and Voorhees 2004; {_TREC_EVAL}", ("bpref",)),
    "Judged": About("share of the top k results the qrels judge",
                    "MacAvaney, Macdonald and Ounis 2022: ir_measures", ("Judged@10",)),
    "num_ret": About("documents retrieved (summed over topics)", _TREC_EVAL, ("num_ret",)),
    "num_rel": About("relevant documents in the qrels (summed)", _TREC_EVAL, ("num_rel",)),
    "num_rel_ret": About("relevant documents retrieved (summed)", _TREC_EVAL, ("num_rel_ret",)),
}
"""The presentation of every built-in family; a family registered elsewhere without an entry
is shown from its description (:func:`about`)."""


def about(family: Family) -> About:
    """How ``inexeval measures`` shows ``family``: its :data:`ABOUT` entry, else its
    description's first clause and the citation in its last parentheses."""
    known = ABOUT.get(family.name)
    if known is not None:
        return known
    description = family.description
    source = ""
    if description.endswith(")") and "(" in description:
        source = description[description.rindex("(") + 1:-1]
    summary = re.split(r"[;:(]", description, maxsplit=1)[0].strip()
    return About(summary, source, (syntax(family, example=True),))


def group(family: Family) -> str:
    """The kind of assessments ``family`` applies to, as a heading (see :data:`SCALE_NAMES`)."""
    if family.scales is None:
        return ANY_ASSESSMENTS
    inex = [_INEX_YEARS[s] for s in family.scales if s in _INEX_YEARS]
    parts = []
    if inex:
        first, last = inex[0][0], inex[-1][1]
        parts.append(f"INEX {first}{'' if first == last else '-' + last} element assessments")
    parts += [SCALE_NAMES.get(s, s) for s in family.scales if s not in _INEX_YEARS]
    return " and ".join(parts)


def group_key(family: Family) -> int:
    """Groups in the campaigns' order: any assessments first, then by the earliest scale."""
    if family.scales is None:
        return 0
    order = list(SCALE_NAMES)
    return 1 + min(order.index(s) if s in order else len(order) for s in family.scales)


def syntax(family: Family, example: bool = False) -> str:
    """The family's name with its cut-off as written: ``P@k``, ``iP[x]``, ``inex_eval[@x]``
    (``k`` a rank, ``x`` a level in [0, 1]; in brackets when it may be left out); ``example``:
    with a valid cut-off instead (``P@10``, ``iP[0.01]``)."""
    if family.cutoff is None:
        return family.name
    if example:
        cut = "10" if family.cutoff is int else "0.01" if family.bracket_cutoff else "0.5"
    else:
        cut = "k" if family.cutoff is int else "x"
    if family.cutoff_required:
        return f"{family.name}[{cut}]" if family.bracket_cutoff else f"{family.name}@{cut}"
    return family.name if example else f"{family.name}[@{cut}]"


def measure_groups(measures: Sequence[Measure]) -> dict[tuple[Any, ...], list[Measure]]:
    """The measures by family and parameters (one kernel call each), in the order each group
    first comes: the order of a topic's rows."""
    groups: dict[tuple[Any, ...], list[Measure]] = {}
    for m in measures:
        groups.setdefault((m.family.name, m.params), []).append(m)
    return groups
