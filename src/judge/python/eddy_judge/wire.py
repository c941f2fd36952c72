"""The language-neutral call protocol: Python values as type-tagged JSON for another language's
harness, and its answers back as Python values for the template's comparator (trusted side).

Out (arguments): null, true/false, strings as JSON; {"int": "12"}, {"float": 1.5 | "nan" | "inf"
| "-inf"}, {"list": [...]}, {"tuple": [...]}, {"set": [...]}, {"dict": [[k, v], ...]}.
Back (answers), in what the language can say: {"int": "12"} (a language with integers),
{"num": "12"} (an integral number in a language without an int/float distinction),
{"float": ...}, {"seq": [...]} (an array), {"set": [...]}, {"map": [[k, v], ...]}, {"opaque": text},
{"arr": [[k, v], ...], "list": bool} (PHP's one container: a dict where one is expected, else a
list when its keys are 0, 1, 2…, else a dict).

A language without tuples (or without integers) cannot say which one it meant; the expected value
at the same place decides (`like`): an array where a tuple is expected reads as a tuple, an
integral number where a float is expected as that float. Nothing else is converted: a string is
never a number, an array never a set, and a wrong length or type still differs.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .compare import Opaque
from .protocol import HASH_SHARE, HashFlood, refuse_flood

MAX_DIGITS = 4000


class WireError(ValueError):
    """A value the protocol cannot carry (arguments), or a malformed answer."""


class WireFlood(WireError):
    """An answer's set or map whose keys hash alike (protocol.refuse_flood), refused before the set
    or dict is built (issue #43): the answer's failure at that call, as protocol.HashFlood is for
    a Python answer (a resource error, not a malformed line)."""


def _float_out(x: float) -> Any:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def to_wire(v: Any) -> Any:
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return {"int": str(v)}
    if t is float:
        return {"float": _float_out(v)}
    if t is list:
        return {"list": [to_wire(x) for x in v]}
    if t is tuple:
        return {"tuple": [to_wire(x) for x in v]}
    if t is set or t is frozenset:
        return {"set": [to_wire(x) for x in v]}
    if t is dict:
        return {"dict": [[to_wire(k), to_wire(x)] for k, x in v.items()]}
    raise WireError("a %s argument, which the call protocol does not carry" % t.__name__)


def calls_json(calls: list[tuple[Any, ...]]) -> bytes:
    return json.dumps([[to_wire(a) for a in args] for args in calls], separators=(",", ":")).encode()


def _int(text: Any) -> int:
    if type(text) is not str or len(text) > MAX_DIGITS:
        raise WireError("a malformed integer")
    try:
        return int(text)
    except ValueError:
        raise WireError("a malformed integer") from None


def _at(like: Any, i: int) -> Any:
    if isinstance(like, (list, tuple)) and like:
        return like[i] if i < len(like) else like[-1]
    return None


def _sample(like: Any) -> Any:
    if isinstance(like, (set, frozenset)) and like:
        return next(iter(like))
    return None


def from_wire(v: Any, like: Any = None) -> Any:
    """One answer value, read as the expected value `like` reads where the language cannot say."""
    if v is None or type(v) in (bool, str):
        return v
    if type(v) is dict and "arr" in v and type(v.get("list")) is bool:
        return _from_array(v["arr"], v["list"] is True, like)
    if type(v) is not dict or len(v) != 1:
        raise WireError("a value without a type tag")
    tag, x = next(iter(v.items()))
    if tag == "int":
        return _int(x)
    if tag == "num":
        n = _int(x)
        return float(n) if type(like) is float else n
    if tag == "float":
        if type(x) is str and x in ("nan", "inf", "-inf"):
            return float(x)
        if type(x) not in (int, float):
            raise WireError("a malformed float")
        return float(x)
    if tag == "opaque":
        return Opaque(str(x)[:300])
    if type(x) is not list:
        raise WireError("a malformed %s" % tag)
    if tag == "seq":
        items = [from_wire(e, _at(like, i)) for i, e in enumerate(x)]
        return tuple(items) if type(like) is tuple else items
    if tag == "set":
        sample = _sample(like)
        items = [from_wire(e, sample) for e in x]
        try:
            if len(items) > HASH_SHARE:
                refuse_flood(items)
            return frozenset(items) if type(like) is frozenset else set(items)
        except TypeError:
            return Opaque("a set of unhashable values")
    if tag == "map":
        kl = next(iter(like.keys())) if isinstance(like, dict) and like else None
        keys: list[Any] = []
        for pair in x:
            if type(pair) is not list or len(pair) != 2:
                raise WireError("a malformed map entry")
            keys.append(from_wire(pair[0], kl))
        try:
            # Looked at before any dict is built: the expected dict (trusted) holds few keys of
            # any one hash, so looking the answer's keys up in it (`like`) is bounded too.
            if len(keys) > HASH_SHARE:
                refuse_flood(keys, "a map", "keys")
            vals = [from_wire(pair[1], like.get(k) if isinstance(like, dict) else None) for pair, k in zip(x, keys)]
            return dict(zip(keys, vals))
        except TypeError:
            return Opaque("a map with an unhashable key")
    raise WireError("an unknown type tag %r" % tag[:20])


def _from_array(pairs: Any, is_list: bool, like: Any) -> Any:
    if type(pairs) is not list or not all(type(p) is list and len(p) == 2 for p in pairs):
        raise WireError("a malformed array")
    if is_list and not isinstance(like, dict):
        return from_wire({"seq": [p[1] for p in pairs]}, like)
    return from_wire({"map": pairs}, like)


def read_answer(value_json: str, meta_json: str, expected: Any, args: tuple[Any, ...]) -> tuple[Any, Any, bool]:
    """(value, arguments after the call or None, whether the value holds an argument object)."""
    # Every byte here came from the answer's process: one total function, a value or WireError
    # (the answer's runtime_error), whatever the line holds (float() of a 400-digit integer is an
    # OverflowError, a deep array a RecursionError...).
    try:
        value = from_wire(json.loads(value_json), expected)
        meta = json.loads(meta_json)
        after_raw = meta.get("after") if type(meta) is dict else None
        after = tuple(from_wire(a, like) for a, like in zip(after_raw, args)) if type(after_raw) is list and len(after_raw) == len(args) else None
        return value, after, type(meta) is dict and meta.get("shares") is True
    except WireError:
        raise
    except HashFlood as e:
        raise WireFlood(str(e)) from None
    except Exception as e:
        raise WireError("a malformed answer (%s)" % type(e).__name__) from None
