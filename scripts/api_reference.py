"""Print the README's API reference from the docstrings (tests/test_readme.py checks that the
README holds exactly this text between its api-reference markers)."""

from __future__ import annotations

import inspect
from typing import Any

import inexeval
import inexeval.inputs
import inexeval.measures
from inexeval.results import Results

FUNCTIONS = ("evaluate", "calc_aggregate", "iter_calc", "Evaluator", "load_assessments",
             "load_run", "as_assessments", "as_run", "with_implicit", "load_collection",
             "Experiment", "compare")
RESULTS_METHODS = ("mean", "value", "means", "to_dataframe", "to_dict")


def _signature(obj: Any, drop_self: bool = False) -> str:
    signature = inspect.signature(obj)
    parameters = [p.replace(annotation=inspect.Parameter.empty)
                  for p in signature.parameters.values()]
    if drop_self:
        parameters = parameters[1:]
    return str(signature.replace(parameters=parameters,
                                 return_annotation=inspect.Signature.empty))


def _entry(title: str, obj: Any) -> str:
    return f"#### `{title}`\n\n{inspect.cleandoc(obj.__doc__ or '')}\n"


def reference() -> str:
    parts = [_entry(f"inexeval.{name}{_signature(getattr(inexeval, name))}",
                    getattr(inexeval, name)) for name in FUNCTIONS]
    parts += [_entry(f"Results.{name}{_signature(getattr(Results, name), drop_self=True)}",
                     getattr(Results, name)) for name in RESULTS_METHODS]
    parts.append(_entry("inexeval.measures", inexeval.measures))
    return "\n".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
