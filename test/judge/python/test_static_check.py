"""Static checks: SPEC order, a single pass over the symbol tables, and no static_error for code
that CPython runs.

The corpus below was written for these tests (in the style of answers to HumanEval-like
questions). Each "runs" sample is checked twice: the static check passes it, and CPython compiles
the code the check returned, runs the module and calls the function without an error. Each
"fails" sample is a static_error naming the undefined names, and CPython raises NameError when
the module loads or the function is called.
"""

import builtins
import sys
import unittest
from typing import Any

from eddy_sandbox.static_check import precheck, unbound_names


def run(compiled: Any, fn: str, args: tuple[Any, ...]) -> Any:
    ns: dict[str, Any] = {"__name__": "candidate", "__file__": "candidate.py", "__doc__": None, "__builtins__": builtins}
    exec(compiled, ns)  # noqa: S102 - the test's own corpus
    return ns[fn](*args)


# (what it shows, code, function, arguments, result)
RUNS: list[tuple[str, str, str, tuple[Any, ...], Any]] = [
    (
        "annotations of a function's local variables are never evaluated (no typing import)",
        """
def filter_positive(values):
    picked: List[int] = []
    seen: Set[int]
    counts: Dict[str, int] = {"n": 0}
    for v in values:
        if v > 0:
            picked.append(v)
            counts["n"] += 1
    return picked
""",
        "filter_positive",
        ([3, -1, 4],),
        [3, 4],
    ),
    (
        "from __future__ import annotations: parameter, return, module and class annotations are strings",
        """
from __future__ import annotations

LIMIT: Final[int] = 10

class Box:
    items: List[Item]
    label: Optional[str] = None

    def __init__(self, items: Sequence[Item]) -> None:
        self.items = list(items)

def largest(xs: List[int], box: Box | None = None) -> Optional[int]:
    return max(xs) if xs else None
""",
        "largest",
        ([2, 9, 4],),
        9,
    ),
    (
        "a module name bound only by a function's global statement",
        """
def _setup():
    global _memo
    _memo = {0: 0, 1: 1}

_setup()

def fib(n):
    if n not in _memo:
        _memo[n] = fib(n - 1) + fib(n - 2)
    return _memo[n]
""",
        "fib",
        (20,),
        6765,
    ),
    (
        "a class body's global statement",
        """
class Registry:
    global REGISTRY
    REGISTRY = {}

def register(key):
    REGISTRY[key] = len(REGISTRY)
    return REGISTRY[key]
""",
        "register",
        ("a",),
        0,
    ),
    (
        "nonlocal",
        """
def running_total(xs):
    total = 0
    def add(v):
        nonlocal total
        total += v
    for x in xs:
        add(x)
    return total
""",
        "running_total",
        ([1, 2, 3],),
        6,
    ),
    (
        "comprehensions in a class body and in the function",
        """
class Table:
    keys = ["a", "b", "c"]
    index = {k: i for i, k in enumerate(keys)}
    upper = [k.upper() for k in keys]
    pairs = [(k, v) for k in keys for v in range(2) if v]

def lookup(k):
    squares = {n: n * n for n in range(5)}
    nested = [[c for c in word] for word in Table.upper]
    return Table.index[k] + squares[2] + len(nested)
""",
        "lookup",
        ("b",),
        8,
    ),
    (
        "an import that may fail, with a fallback binding",
        """
try:
    import numpy_that_is_not_installed as np
except ImportError:
    np = None

if np is None:
    import statistics

def mean(xs):
    if np is not None:
        return float(np.mean(xs))
    return statistics.mean(xs)
""",
        "mean",
        ([1, 2, 3],),
        2,
    ),
    (
        "imports and definitions inside if/else",
        """
import sys

if sys.version_info >= (3, 8):
    from math import prod
else:
    def prod(xs):
        out = 1
        for x in xs:
            out *= x
        return out

def product(xs):
    return prod(xs)
""",
        "product",
        ([2, 3, 4],),
        24,
    ),
    (
        "del of a local and of a module name",
        """
_scratch = [1, 2]
del _scratch

def dedupe(xs):
    seen = set()
    out = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    del seen
    return out
""",
        "dedupe",
        ([1, 1, 2],),
        [1, 2],
    ),
    (
        "the name of an except ... as clause",
        """
def parse_length(s):
    try:
        return int(s)
    except ValueError as err:
        message = str(err)
    return len(message) > 0
""",
        "parse_length",
        ("x",),
        True,
    ),
    (
        "walrus in comprehensions binds in the enclosing function, and at module level in the module",
        """
doubled = [last := x * 2 for x in range(3)]
LAST = last

def running_max(xs):
    best = float("-inf")
    out = [best := max(best, x) for x in xs]
    if any((hit := x) > 2 for x in xs):
        return out, best, hit, LAST
    return out, best
""",
        "running_max",
        ([1, 3, 2],),
        ([1, 3, 3], 3, 3, 4),
    ),
    (
        "names bound by match patterns",
        """
def describe(point):
    match point:
        case (0, 0):
            return "origin"
        case (x, 0):
            return "x=%d" % x
        case {"x": px, **rest}:
            return px + len(rest)
        case [first, *others]:
            return first + len(others)
        case str() as text:
            return text
        case _:
            return None

match [1, 2]:
    case [one, two]:
        pass

def pair_sum():
    return one + two
""",
        "describe",
        ({"x": 1, "y": 2},),
        2,
    ),
    (
        "a star import",
        """
from math import *

def hypot2(a, b):
    return sqrt(a * a + b * b)
""",
        "hypot2",
        (3, 4),
        5.0,
    ),
    (
        "names used only after a return, in functions never called, in the __main__ block",
        """
def solve(x):
    return x * 2
    print(undefined_after_return)

def unused_helper():
    return not_defined_anywhere(1)

lambda_unused = lambda v: missing_in_lambda(v)

if __name__ == "__main__":
    print(solve(read_input()))
""",
        "solve",
        (4,),
        8,
    ),
    (
        "__class__ and super()",
        """
class Base:
    def value(self):
        return 1

class Child(Base):
    def value(self):
        return super().value() + 1

    def kind(self):
        return __class__.__name__

def solve(n):
    c = Child()
    return c.value() * n, c.kind()
""",
        "solve",
        (3,),
        (6, "Child"),
    ),
    (
        "built-ins read before a class body or a parameter shadows them",
        """
class Stats:
    total = sum([1, 2, 3])
    def sum(self, xs):
        return 0
    len = len

def solve(xs, list=None, input=0):
    return Stats.total + Stats.len(xs) + input
""",
        "solve",
        ([1, 2],),
        8,
    ),
    (
        "an undefined name in a branch the inputs never take",
        """
def safe_div(a, b):
    if b == 0:
        return fallback_value
    elif b < 0:
        raise ValueError(explain(b))
    return a / b
""",
        "safe_div",
        (4, 2),
        2.0,
    ),
    (
        "an undefined name in a loop body, a comprehension, a conditional expression, and/or",
        """
def tally(xs, flag=False):
    total = 0
    for x in xs:
        total += weight(x)
    while total < 0:
        total = fix(total)
    extra = [scale(x) for x in xs]
    picked = flag and special(xs)
    other = flag or 0
    chosen = 1 if not flag else expensive(xs)
    bounded = 5 < len(xs) < LIMIT
    return total + len(extra) + other + chosen + bounded
""",
        "tally",
        ([],),
        1,
    ),
    (
        "a NameError the function catches",
        """
def solve(x):
    try:
        return fast_path(x)
    except NameError:
        return x + 1
""",
        "solve",
        (1,),
        2,
    ),
    (
        "a NameError a context manager swallows",
        """
import contextlib

def solve(x):
    with contextlib.suppress(NameError):
        return turbo(x)
    return x
""",
        "solve",
        (5,),
        5,
    ),
    (
        "a class body whose metaclass supplies missing names",
        """
import collections

class Defaults(type):
    @classmethod
    def __prepare__(mcs, name, bases):
        return collections.defaultdict(int)

class Config(metaclass=Defaults):
    retries = max_retries + 1

class Child(Config):
    timeout = default_timeout + 2

def solve(x):
    return Config.retries + Child.timeout + x
""",
        "solve",
        (1,),
        4,
    ),
    (
        "names bound through globals()",
        """
for _name, _value in [("ALPHA", 2), ("BETA", 3)]:
    globals()[_name] = _value

def solve(x):
    return x * ALPHA + BETA
""",
        "solve",
        (5,),
        13,
    ),
    (
        "a decorator that replaces the function",
        """
def replace(f):
    def g(x):
        return x
    return g

@replace
def solve(x):
    return helper_that_does_not_exist(x)
""",
        "solve",
        (7,),
        7,
    ),
    (
        "a generator function: calling it runs nothing",
        """
def solve(n):
    yield from missing_source(n)
""",
        "solve",
        (3,),
        None,
    ),
    (
        "the function defined twice: the second is called",
        """
def solve(x):
    return missing_helper(x)

def solve(x):
    return x + 1
""",
        "solve",
        (1,),
        2,
    ),
    (
        "a module name bound after the function, and names bound by for, with and a dotted import",
        """
import os.path

def solve(x):
    return SCALE * x, os.path.basename("a/b"), _i, _fh.closed

SCALE = 3
for _i in range(2):
    pass
with open(os.devnull) as _fh:
    pass
""",
        "solve",
        (2,),
        (6, "b", 1, True),
    ),
    (
        "string annotations and imports only for type checkers",
        """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

def solve(xs: "Sequence[int]") -> "int":
    count: Sequence = len(xs)
    return count
""",
        "solve",
        ([1, 2],),
        2,
    ),
    (
        "an assert's message is evaluated only when the assertion fails",
        """
def solve(x):
    assert x >= 0, describe_failure(x)
    return x
""",
        "solve",
        (3,),
        3,
    ),
    (
        "module dunders",
        """
def solve(x):
    return __name__, __doc__, x
""",
        "solve",
        (1,),
        ("candidate", None, 1),
    ),
]


# (what it shows, code, function, arguments, the names reported)
FAILS: list[tuple[str, str, str, tuple[Any, ...], list[str]]] = [
    (
        "a module used without its import",
        """
def floor_sum(xs):
    return math.floor(sum(xs))
""",
        "floor_sum",
        ([1.5, 2.0],),
        ["math"],
    ),
    (
        "a parameter annotation without its typing import (evaluated when the def runs)",
        """
def count_even(xs: List[int]) -> int:
    return sum(1 for x in xs if x % 2 == 0)
""",
        "count_even",
        ([1, 2],),
        ["List"],
    ),
    (
        "a module-level call to a function that is not defined",
        """
CONFIG = load_config()

def solve(x):
    return x
""",
        "solve",
        (1,),
        ["load_config"],
    ),
    (
        "a class-level annotation of a dataclass without its typing import",
        """
from dataclasses import dataclass

@dataclass
class Point:
    coords: List[float]

def solve(x):
    return Point([x])
""",
        "solve",
        (1.0,),
        ["List"],
    ),
    (
        "a module-level annotated assignment",
        """
CACHE: Dict[str, int] = {}

def solve(x):
    return x
""",
        "solve",
        (1,),
        ["Dict"],
    ),
    (
        "a misspelt variable after a loop",
        """
def collect(xs):
    output = []
    for x in xs:
        output.append(x * 2)
    return sorted(outptu)
""",
        "collect",
        ([3, 1],),
        ["outptu"],
    ),
    (
        "an undefined name in a comprehension's first iterable and in an if's test",
        """
def merged(a, b):
    both = [x for x in itertools.chain(a, b)]
    if is_valid(both):
        return both
    return []
""",
        "merged",
        ([1], [2]),
        ["itertools", "is_valid"],
    ),
    (
        "a class body inside the function",
        """
def scaled(x):
    class Local:
        factor = DEFAULT_FACTOR
    return x * Local.factor
""",
        "scaled",
        (2,),
        ["DEFAULT_FACTOR"],
    ),
    (
        "a with statement's context manager, and a try/finally",
        """
def guarded(x):
    try:
        x = x + offset
    finally:
        cleanup()
    with lock:
        return x
""",
        "guarded",
        (1,),
        ["offset", "cleanup", "lock"],
    ),
    (
        "a default value and a decorator of a helper",
        """
@lru_cache(maxsize=None)
def helper(n):
    return n

def solve(x, table=LOOKUP):
    return table[x]
""",
        "solve",
        (0,),
        ["lru_cache", "LOOKUP"],
    ),
    (
        "a global statement that reads a name nothing binds",
        """
def total(xs):
    global grand_total
    return grand_total + sum(xs)
""",
        "total",
        ([1],),
        ["grand_total"],
    ),
]


# CPython fails these on every call, but not on every path a static analysis can be sure of:
# they are left to the run (a runtime_error then), never a static_error.
LEFT_TO_THE_RUN: list[tuple[str, str, str, tuple[Any, ...]]] = [
    ("a comprehension's element", "def solve(xs):\n    return [math.sqrt(x) for x in xs]\n", "solve", ([4],)),
    ("a loop body", "def solve(xs):\n    for x in xs:\n        return helper(x)\n", "solve", ([1],)),
    ("after a branch that may return", "def solve(x):\n    if x < 0:\n        return 0\n    return helper(x)\n", "solve", (1,)),
    ("a helper the function calls", "def solve(x):\n    return helper(x)\ndef helper(x):\n    return missing(x)\n", "solve", (1,)),
    ("a decorated function's body", "import functools\n@functools.lru_cache\ndef solve(x):\n    return missing(x)\n", "solve", (1,)),
]


class Precheck(unittest.TestCase):
    def test_categories_in_order(self) -> None:
        cases = [
            ("x = 1\n", "no_function"),
            ("def other(a):\n    return a\n", "wrong_function_name"),
            ("def f(a, b):\n    return a\n", "wrong_arg_count"),
            ("def f(a):\n    return (\n", "syntax_error"),
            ("def f(a):\n    return math.floor(a)\n", "static_error"),
            ("def f(a):\n    return " + "(" * 5000 + "1" + ")" * 5000 + "\n", "syntax_error"),
        ]
        for code, want in cases:
            verdict, compiled = precheck(code, "f", 1)
            self.assertIsNotNone(verdict, code[:40])
            assert verdict is not None
            self.assertEqual(verdict[0], want, code[:40])
            self.assertIsNone(compiled)
        verdict, compiled = precheck("import math\ndef f(a, *rest):\n    return math.floor(a)\n", "f", 1)
        self.assertIsNone(verdict)
        self.assertIsNotNone(compiled)

    def test_every_unbound_name_once_in_first_seen_order(self) -> None:
        # 40,000 distinct unbound names: the old list look-up made this quadratic.
        names = ["n%d" % i for i in range(40_000)]
        code = "def f(a):\n    return 0\nx = (" + ", ".join(names + names[:10]) + ")\n"
        self.assertEqual(unbound_names(code), names)


class OnlyWhatCPythonFailsOn(unittest.TestCase):
    def test_code_cpython_runs_passes_the_check(self) -> None:
        for what, code, fn, args, want in RUNS:
            with self.subTest(what):
                verdict, compiled = precheck(code, fn, len(args))
                self.assertIsNone(verdict, what)
                self.assertIsNotNone(compiled)
                got = run(compiled, fn, args)
                if fn == "solve" and "yield" in code:
                    self.assertEqual(type(got).__name__, "generator")
                else:
                    self.assertEqual(got, want, what)

    def test_names_cpython_cannot_find_are_static_errors(self) -> None:
        for what, code, fn, args, names in FAILS:
            with self.subTest(what):
                verdict, compiled = precheck(code, fn, len(args))
                self.assertEqual(verdict, ("static_error", "undefined name%s: %s" % ("s" if len(names) > 1 else "", ", ".join(names))), what)
                self.assertIsNone(compiled)
                with self.assertRaises(NameError, msg=what):
                    run(compile(code, "candidate.py", "exec"), fn, args)

    def test_what_a_path_analysis_cannot_be_sure_of_is_left_to_the_run(self) -> None:
        for what, code, fn, args in LEFT_TO_THE_RUN:
            with self.subTest(what):
                verdict, compiled = precheck(code, fn, len(args))
                self.assertIsNone(verdict, what)
                with self.assertRaises(NameError, msg=what):
                    run(compiled, fn, args)

    def test_the_same_code_with_the_name_bound_passes(self) -> None:
        # Each failing sample, with its missing names bound at the top, passes the check.
        for what, code, fn, args, names in FAILS:
            with self.subTest(what):
                bound = "".join("%s = None\n" % n for n in names) + code
                self.assertEqual(unbound_names(bound, fn), [], what)

    def test_annotations_follow_the_python_version(self) -> None:
        # Module-level annotations are evaluated where they stand up to 3.13 (PEP 649 makes them
        # lazy from 3.14); a function's local ones never are.
        module = "X: Undefined = 1\ndef f(a):\n    return a\n"
        local = "def f(a):\n    y: Undefined = a\n    return y\n"
        self.assertEqual(unbound_names(module, "f"), [] if sys.version_info >= (3, 14) else ["Undefined"])
        self.assertEqual(unbound_names(local, "f"), [])

    def test_linear_in_the_code(self) -> None:
        # A long straight function and deep statement nesting stay within the check's time.
        body = "".join("    v%d = v%d + 1\n" % (i + 1, i) for i in range(20_000))
        code = "def f(v0):\n" + body + "    return missing\n"
        self.assertEqual(unbound_names(code, "f"), ["missing"])
        deep = "def f(a):\n" + "".join("    " * (i + 1) + "try:\n" for i in range(15))
        deep += "    " * 16 + "x = missing\n"
        deep += "".join("    " * (i + 1) + "finally:\n" + "    " * (i + 2) + "pass\n" for i in reversed(range(15)))
        deep += "    return a\n"
        self.assertEqual(unbound_names(deep, "f"), ["missing"])


if __name__ == "__main__":
    unittest.main()
