"""Comparators (TEAM contract): type-strict by default, tolerance only where a template says so.

- `ordered` (default): equal values of the same types, recursively: bool is not int, float is not
  int, list is not tuple, set is not frozenset; dicts and sets compared by value.
- `unordered`: a list or tuple compared as a multiset of type-strict elements.
- `set`: compared as sets of type-strict elements; when the expected answer is a set, the answer
  must be a set or frozenset (a list is not one).
- `float:<tol>`: numbers equal within absolute-or-relative `tol`, recursively in lists, tuples and
  dict values; everything else as `ordered`.
An oracle's own `compare(expected, actual, **params)` wins over all of these.

No set or dict is built here from an answer's keys without a bound (issue #43): the answer's own
sets and dicts were looked at as they were read (protocol.py, wire.py), and rebuilding one from
the same keys costs what building it did; the canonical forms of `unordered` and `set` are looked
at here (`_bounded`): an answer whose items hash alike is not equal to anything (`HashFlood`).
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict, defaultdict, deque
from typing import Any, Callable

from .protocol import HASH_SHARE, HashFlood, refuse_flood

Comparator = Callable[[Any, Any], bool]


class Opaque:
    """An answer that is not plain data: shown by its repr, equal to nothing."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


_REBUILT: dict[str, Callable[[Any], Any]] = {"Counter": Counter, "OrderedDict": OrderedDict, "defaultdict": lambda d: defaultdict(None, d), "deque": deque}


def not_plain(sent: Any) -> Any:
    """An answer that is not plain data, as its process sent it: its repr (an Opaque), or (repr,
    (container name, plain content)) for the standard library's containers, rebuilt here so that
    it compares as the same object would in-process."""
    if type(sent) is tuple and len(sent) == 2 and type(sent[0]) is str:
        text, whole = sent
        if type(whole) is tuple and len(whole) == 2 and whole[0] in _REBUILT:
            name, content = whole
            if (name == "deque" and type(content) is list) or (name != "deque" and type(content) is dict):
                try:
                    return _REBUILT[name](content)
                except Exception:
                    pass
        return Opaque(text)
    return Opaque(sent if type(sent) is str else "<unprintable>")


def _float_same(e: float, a: float) -> bool:
    return e == a or (math.isnan(e) and math.isnan(a))


def strict_equal(e: Any, a: Any) -> bool:
    """Equal values whose types match exactly, all the way down."""
    te = type(e)
    if te is not type(a):
        return False
    if te is float:
        return _float_same(e, a)
    if te is list or te is tuple:
        if len(e) != len(a):
            return False
        # Items that are ints or strings (most answers) compared here, the rest recursively:
        # the worker compares every result of every verdict (issue #36).
        for x, y in zip(e, a):
            tx = type(x)
            if tx is not type(y):
                return False
            if tx is int or tx is str:
                if x != y:
                    return False
            elif not strict_equal(x, y):
                return False
        return True
    if te is dict:
        if len(e) != len(a):
            return False
        # Look keys up in a's own dict to get a's key object: 1 and 1.0 hash alike. (a's keys,
        # as a dict of the answer's already holds them: no more of them share a hash than the
        # reader allowed, so this costs what building a did.)
        keys = {k: k for k in a}
        for k, v in e.items():
            if k not in keys or not strict_equal(k, keys[k]) or not strict_equal(v, a[k]):
                return False
        return True
    if te is set or te is frozenset:
        if len(e) != len(a):
            return False
        items = {x: x for x in a}
        return all(x in items and strict_equal(x, items[x]) for x in e)
    if te is Opaque:
        return False
    try:
        return bool(e == a)
    except Exception:
        return False


def _bounded(forms: list[Any]) -> list[Any]:
    """Canonical forms of an answer's about to be hashed into one set or Counter: HashFlood when
    those that share a hash would cost more than the bound to build (protocol.refuse_flood), else
    the forms."""
    if len(forms) > HASH_SHARE:
        refuse_flood(forms, "an answer", "items")
    return forms


def canonical(v: Any, answer: bool = False) -> Any:
    """A hashable, type-tagged form: canonical(x) == canonical(y) exactly when strict_equal(x, y).
    For an answer's value (`answer`), HashFlood where a set or dict's canonical items hash alike:
    nothing is built from them (the expected side is the model solution's, trusted)."""
    t = type(v)
    if t is float:
        return ("float", "nan") if math.isnan(v) else ("float", v)
    if t is list or t is tuple:
        return (t.__name__, tuple(canonical(x, answer) for x in v))
    if t is set or t is frozenset:
        forms = [canonical(x, answer) for x in v]
        return (t.__name__, frozenset(_bounded(forms) if answer else forms))
    if t is dict:
        pairs = [(canonical(k, answer), canonical(x, answer)) for k, x in v.items()]
        return ("dict", frozenset(_bounded(pairs) if answer else pairs))
    if t is Opaque:
        return ("opaque", id(v))
    try:
        hash(v)
        return (t.__module__ + "." + t.__qualname__, v)
    except TypeError:
        return ("unhashable", id(v))


def _unordered(e: Any, a: Any) -> bool:
    if type(e) is not type(a) or type(e) not in (list, tuple):
        return strict_equal(e, a)
    if len(e) != len(a):
        return False
    try:
        theirs = Counter(_bounded([canonical(x, True) for x in a]))
    except HashFlood:
        return False
    return Counter(map(canonical, e)) == theirs


_COLLECTIONS = (list, tuple, set, frozenset)


def _as_set(e: Any, a: Any) -> bool:
    if type(e) not in _COLLECTIONS or type(a) not in _COLLECTIONS:
        return strict_equal(e, a)
    # A question whose answer is a set is not answered by a list (duplicates and all).
    if type(e) in (set, frozenset) and type(a) not in (set, frozenset):
        return False
    try:
        theirs = set(_bounded([canonical(x, True) for x in a]))
    except HashFlood:
        return False
    return set(map(canonical, e)) == theirs


def _number(x: Any) -> bool:
    return type(x) is int or type(x) is float


def close_enough(e: Any, a: Any, tol: float) -> bool:
    if _number(e) and _number(a):
        if type(e) is float and type(a) is float and math.isnan(e) and math.isnan(a):
            return True
        try:
            return math.isclose(e, a, rel_tol=tol, abs_tol=tol)
        except OverflowError:
            return False
    te = type(e)
    if te is not type(a):
        return False
    if te is list or te is tuple:
        return len(e) == len(a) and all(close_enough(x, y, tol) for x, y in zip(e, a))
    if te is dict:
        keys = {k: k for k in a}
        return len(e) == len(a) and all(k in keys and strict_equal(k, keys[k]) and close_enough(v, a[k], tol) for k, v in e.items())
    return strict_equal(e, a)


class UnknownComparator(ValueError):
    pass


def named_comparator(name: str) -> Comparator:
    """The comparator a template names (`ordered` when it names none)."""
    if name == "ordered":
        return strict_equal
    if name == "unordered":
        return _unordered
    if name == "set":
        return _as_set
    if name.startswith("float:"):
        try:
            tol = float(name.split(":", 1)[1])
        except ValueError:
            raise UnknownComparator("bad tolerance in comparator %r" % name)
        if not (tol >= 0 and math.isfinite(tol)):
            raise UnknownComparator("bad tolerance in comparator %r" % name)
        return lambda e, a: close_enough(e, a, tol)
    raise UnknownComparator("unknown comparator %r" % name)


def make_comparator(mod: object, name: str, kw: dict[str, Any]) -> Comparator:
    """expected, actual -> bool for an oracle module: its `compare(e, a, **params)` when it has
    one, else the named comparator (what the worker uses; also imported by template tooling)."""
    import copy

    custom = getattr(mod, "compare", None)
    if callable(custom):
        return lambda e, a: bool(custom(e, a, **copy.deepcopy(kw)))
    return named_comparator(name or "ordered")
