"""The expected outputs of an imported problem as stored beside its oracle (<id>.expected.json).

Issue #43: what a benchmark's canonical solution returns is untrusted, so it is stored in a form
whose reading can run no code: JSON, which Python's parser turns into dicts, lists, strings,
numbers, booleans and None only, with a one-key object for each type JSON lacks. An object whose one
key starts with "$" is such a tag; any other object is a record of the file's own (the top level):
  {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]}, {"$dict": [[key, value], ...]},
  {"$bytes": "<base64>"}, {"$complex": [re, im]}, {"$int": "<hex>"} (an integer too long for JSON's
  decimal: Python reads at most 4300 digits), {"$float": "nan" | "inf" | "-inf"},
  {"$Counter" | "$OrderedDict" | "$defaultdict": [[key, value], ...]}, {"$deque": [...]}.
A Python dict is always {"$dict": ...}, so no record is ever taken for a value. Lists, strings,
finite floats, integers that fit, booleans and None are JSON's own.

`decode_expected` is total and bounded: whatever the bytes, it returns a value or raises
ValueError; it builds only the types above, from plain values; a set or dict whose keys hash alike
(more than 32 sharing one hash: building it would take quadratic time) is refused, as the judge
refuses one from an answer (protocol.refuse_flood); nesting is bounded by the parser's recursion
limit. This file's text is copied into every imported oracle (src/import/humaneval/oracleSource.ts),
which reads its outputs with it in the trusted judge worker; expected.py writes them with it.
Standard library only, no `from __future__`, every name of its own starting with `_x` or
`EXPECTED_` or ending in `_expected` (it shares the oracle's module namespace).
"""

import base64 as _x_base64
import collections as _x_collections
import json as _x_json
import math as _x_math
import re as _x_re
import sys as _x_sys

EXPECTED_FORMAT = "eddy-expected/1"

# Integers longer than this many bits are written in hexadecimal (JSON's decimal integers above
# 4300 digits, about 14,300 bits, are refused by Python's int <-> str conversion limit).
_X_INT_BITS = 12000
# More than this many keys of a set or dict sharing one hash value: refused (quadratic to build).
_X_HASH_SHARE = 32
# JSON nesting the reader accepts: the judge reads values 1000 deep, each container one level of
# JSON more for its tag.
_X_RECURSION = 6000
_X_SCALARS = frozenset((str, bool, type(None)))
_X_NUMBERS = frozenset((str, bool, type(None), int, float))
_X_HEX = _x_re.compile(r"-?0x[0-9a-f]+\Z")
_X_FORMS = {_x_collections.Counter: "$Counter", _x_collections.OrderedDict: "$OrderedDict", _x_collections.defaultdict: "$defaultdict"}


def _x_flat(x, careful):
    """Whether a list or tuple holds only values JSON writes as they are (checked with C loops)."""
    types = set(map(type, x))
    return types <= _X_SCALARS or (not careful and types <= _X_NUMBERS)


def _x_enc(x, careful):
    t = type(x)
    if t is str or t is bool or x is None:
        return x
    if t is int:
        return x if x.bit_length() <= _X_INT_BITS else {"$int": hex(x)}
    if t is float:
        if _x_math.isfinite(x):
            return x
        return {"$float": "nan" if x != x else ("inf" if x > 0 else "-inf")}
    if t is list:
        return x if _x_flat(x, careful) else [_x_enc(i, careful) for i in x]
    if t is tuple:
        return {"$tuple": x if _x_flat(x, careful) else [_x_enc(i, careful) for i in x]}
    if t is set or t is frozenset:
        return {"$set" if t is set else "$frozenset": [_x_enc(i, careful) for i in x]}
    if t is dict:
        return {"$dict": [[_x_enc(k, careful), _x_enc(v, careful)] for k, v in x.items()]}
    if t is bytes:
        return {"$bytes": _x_base64.b64encode(x).decode("ascii")}
    if t is complex:
        return {"$complex": [_x_enc(x.real, careful), _x_enc(x.imag, careful)]}
    if t in _X_FORMS:
        return {_X_FORMS[t]: [[_x_enc(k, careful), _x_enc(v, careful)] for k, v in dict(x).items()]}
    if t is _x_collections.deque:
        return {"$deque": [_x_enc(i, careful) for i in x]}
    raise TypeError("a %s, which the expected-outputs file does not store" % t.__name__)


def encode_expected(record):
    """The file's bytes for `record` (a dict with str keys, none starting with '$'): ASCII JSON.
    TypeError for a value of a type it does not store."""
    if type(record) is not dict or any(type(k) is not str or k.startswith("$") for k in record):
        raise TypeError("the top level is a record: a dict with str keys not starting with '$'")
    old = _x_sys.getrecursionlimit()
    _x_sys.setrecursionlimit(max(old, _X_RECURSION))
    try:
        body = {k: _x_enc(v, False) for k, v in record.items()}
        try:
            return _x_json.dumps(body, allow_nan=False, separators=(",", ":")).encode("ascii")
        except ValueError:
            # A NaN, an infinity or a long integer inside a list written as it was: every number
            # looked at one by one.
            body = {k: _x_enc(v, True) for k, v in record.items()}
            return _x_json.dumps(body, allow_nan=False, separators=(",", ":")).encode("ascii")
    finally:
        _x_sys.setrecursionlimit(old)


def _x_pairs_of(v):
    if type(v) is not list or any(type(p) is not list or len(p) != 2 for p in v):
        raise ValueError("expected a list of [key, value] pairs")
    return [p[0] for p in v], [p[1] for p in v]


def _x_no_flood(keys):
    if len(keys) > _X_HASH_SHARE:
        hashes = list(map(hash, keys))
        if len(hashes) - len(set(hashes)) >= _X_HASH_SHARE and max(_x_collections.Counter(hashes).values()) > _X_HASH_SHARE:
            raise ValueError("a set or dict whose keys hash alike")


def _x_tag(tag, v):
    if tag == "$tuple":
        if type(v) is not list:
            raise ValueError("a tuple that is not a list")
        return tuple(v)
    if tag == "$set" or tag == "$frozenset":
        if type(v) is not list:
            raise ValueError("a set that is not a list")
        _x_no_flood(v)
        return set(v) if tag == "$set" else frozenset(v)
    if tag in ("$dict", "$Counter", "$OrderedDict", "$defaultdict"):
        keys, values = _x_pairs_of(v)
        _x_no_flood(keys)
        d = dict(zip(keys, values))
        if len(d) != len(keys):
            raise ValueError("a dict with a key twice")
        if tag == "$dict":
            return d
        if tag == "$Counter":
            return _x_collections.Counter(d)
        if tag == "$OrderedDict":
            return _x_collections.OrderedDict(d)
        return _x_collections.defaultdict(None, d)
    if tag == "$deque":
        if type(v) is not list:
            raise ValueError("a deque that is not a list")
        return _x_collections.deque(v)
    if tag == "$bytes":
        if type(v) is not str:
            raise ValueError("bytes that are not a string")
        return _x_base64.b64decode(v.encode("ascii"), validate=True)
    if tag == "$complex":
        if type(v) is not list or len(v) != 2 or any(type(p) not in (int, float) for p in v):
            raise ValueError("a complex number that is not [re, im]")
        return complex(v[0], v[1])
    if tag == "$int":
        if type(v) is not str or not _X_HEX.match(v):
            raise ValueError("an integer that is not hexadecimal")
        return int(v, 16)
    if tag == "$float":
        if v not in ("nan", "inf", "-inf"):
            raise ValueError("a float that is not nan or an infinity")
        return float(v)
    raise ValueError("an unknown tag")


def _x_object(pairs):
    if len(pairs) == 1 and pairs[0][0][:1] == "$":
        return _x_tag(pairs[0][0], pairs[0][1])
    if any(k[:1] == "$" for k, _ in pairs):
        raise ValueError("a tag beside other keys")
    d = dict(pairs)
    if len(d) != len(pairs):
        raise ValueError("a record with a key twice")
    return d


def _x_constant(name):
    raise ValueError("%s, which the expected-outputs file writes as a tag" % name)


def decode_expected(blob):
    """The record `encode_expected` wrote, from its bytes; ValueError for anything else."""
    if type(blob) is not bytes:
        raise ValueError("expected bytes")
    old = _x_sys.getrecursionlimit()
    _x_sys.setrecursionlimit(max(old, _X_RECURSION))
    try:
        text = blob.decode("ascii")
        out = _x_json.loads(text, object_pairs_hook=_x_object, parse_constant=_x_constant)
    except ValueError as e:
        raise ValueError("not an expected-outputs file: %s" % str(e)[:200]) from None
    except (TypeError, KeyError, IndexError, RecursionError, MemoryError, OverflowError) as e:
        raise ValueError("not an expected-outputs file: %s" % type(e).__name__) from None
    finally:
        _x_sys.setrecursionlimit(old)
    if type(out) is not dict or out.get("format") != EXPECTED_FORMAT:
        raise ValueError("not an expected-outputs file of format %s" % EXPECTED_FORMAT)
    return out
