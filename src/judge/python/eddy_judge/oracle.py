"""The oracle contract, stated once: what an oracle module defines, loading one, drawing its cases.

The judge's worker and the strength measurement (tools/strength.py) both use this module, so the
random inputs a strength figure is measured on are the ones a candidate meets.

An oracle is a Python file (templates/README.md) that defines, with the template's parameter
values passed as keyword arguments:
- `solution(*args, **params)`: the model solution;
- `tests(**params)`: fixed tests, an iterable of `(args, expected)`;
- `inputs(rng, **params)`: one random input's argument list, drawn from `rng` alone;
and optionally `compare(expected, actual, **params)` (compare.py), `edge_cases(args, **params)`,
`solution_source(**params)` (the code solution() runs, for coverage), `mutant_*` functions, and the
flags `KEEP_ARGUMENTS` (the answer must not modify its arguments) and `NEW_OBJECT` (the answer
must not return an argument object).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import random
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence, cast

from .protocol import exc_line

# What every oracle defines.
REQUIRED = ("solution", "tests", "inputs")


class Oracle(Protocol):
    """The functions every oracle module defines (the optional ones are read with getattr)."""

    def solution(self, *args: Any, **params: Any) -> Any: ...

    def tests(self, **params: Any) -> Iterable[tuple[Sequence[Any], Any]]: ...

    def inputs(self, rng: random.Random, **params: Any) -> Sequence[Any]: ...


class OracleError(Exception):
    """The oracle or the harness failed: a judge_error, never the model's fault."""


def load(path: str, name: str, guard: Callable[[str], AbstractContextManager[object]] | None = None) -> Oracle:
    """Execute the oracle file at `path` as module `name` (inside `guard("loading <file>")` when
    given) and check that it defines the required functions; OracleError otherwise."""
    base = os.path.basename(path)
    if not os.path.isfile(path):
        raise OracleError("oracle file not found: %s" % path)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise OracleError("oracle %s cannot be loaded" % base)
        mod = importlib.util.module_from_spec(spec)
        with (guard or _unguarded)("loading %s" % base):
            spec.loader.exec_module(mod)
    except OracleError:
        raise
    except BaseException as e:
        raise OracleError("oracle %s failed to load: %s" % (base, exc_line(e)))
    for need in REQUIRED:
        if not callable(getattr(mod, need, None)):
            raise OracleError("oracle %s defines no %s()" % (base, need))
    return cast(Oracle, mod)


def _unguarded(what: str) -> AbstractContextManager[object]:
    return nullcontext()


def fixed_tests(mod: Oracle, params: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """The oracle's fixed tests as (argument tuple, expected answer)."""
    for item in mod.tests(**copy.deepcopy(params)):
        args, want = item
        yield tuple(args), want


def random_inputs(mod: Oracle, params: dict[str, Any], seed: int | str, n: int) -> Iterator[tuple[Any, ...]]:
    """The `n` random inputs of one instance: `inputs()` called `n` times on one
    random.Random(seed), the seed being the instance's (Node's inputSeed)."""
    rng = random.Random(int(seed))
    for _ in range(int(n)):
        yield tuple(mod.inputs(rng, **copy.deepcopy(params)))


def keep_arguments(mod: Oracle | ModuleType) -> bool:
    return bool(getattr(mod, "KEEP_ARGUMENTS", False))


def new_object(mod: Oracle | ModuleType) -> bool:
    return bool(getattr(mod, "NEW_OBJECT", False))


def mutant_names(mod: Oracle | ModuleType) -> list[str]:
    """The oracle's mutant_* functions, in definition order."""
    return [n for n, v in vars(mod).items() if n.startswith("mutant_") and callable(v)]
