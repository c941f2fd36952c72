"""A digest of a plain value that two values share exactly when Python's == says they are equal:
what stands for an expected output too large to store or ship (MBPP+'s Mbpp/255: one output of
1.66 million tuples, 744 MB), and what the candidate's harness sends instead of its answer there.

One source text (DIGEST_SOURCE) runs on both sides: here, in the trusted worker and at import, and
in the candidate's harness (sandbox.py execs it into the harness's own scope at start-up), so both
walks are the same code. The walk reads values by exact type only (`type(x) is tuple`, never
isinstance), iterates the built-in containers with the built-ins' own iteration, and calls none of
the value's own methods: a subclass, or anything else, is not plain data and has no digest. It is
iterative (an explicit stack), so depth costs memory (the answer's rlimit), never recursion.

Equality is EvalPlus's `==` on plain data, with these consequences:
- list and tuple never equal each other (distinct tags); set and frozenset do ({1} == frozenset({1})).
- bool is int: True == 1, so True is encoded as 1 ([True] and [1] share a digest).
- str and bytes never equal each other.
- set and dict are order-free: each element (each key and value) gets its own digest and the
  sorted digests are hashed, so iteration order (insertion history, hash seeds) never shows.
- floats and complex numbers: an expected output holding any has no digest (`strict`: EvalPlus
  would compare it within a tolerance, which a digest cannot). On the answer's side a float or
  complex number equal to an integer (2.0, 2+0j) is that integer, as == says; any other has no
  digest, and the answer fails, as it would with == against a float-free expected value.
- Counter, OrderedDict and defaultdict (exact types) are compared as the dict they hold on the
  answer's side, as dict == Counter is (the expected side is exact built-ins only).

Encoding (sha256 over it): a str, bytes, int or None is marshal's (version 2: no references, no
interning flag, deterministic); a list or tuple is marshal's header (type byte, 4-byte count) and
its items' encodings, so a tree of lists and tuples of such leaves is marshal's own output, which
the walk uses in chunks (C speed: Mbpp/255 in seconds); a set is 0x01, its count and its
elements' sorted sha256 digests; a dict 0x02, its count and the sorted (key digest + value digest).
"""

from __future__ import annotations

from typing import Any, Callable

DIGEST_SOURCE = r'''
import collections as _c
import itertools as _it
import marshal as _marshal

# SHA-256 from CPython's own module (`_sha256`, `_sha2` from 3.12): hashlib would load OpenSSL
# into the zygote, whose every mapping each candidate's clone copies (issue #36). The same digest.
try:
    from _sha256 import sha256 as _sha256
except ImportError:
    try:
        from _sha2 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256
_dumps = _marshal.dumps
_chain = _it.chain.from_iterable
_LEAF = frozenset({str, bytes, int, type(None)})
_SEQ = frozenset({list, tuple})
_DICT_ITEMS = dict.items
_ANSWER_DICTS = frozenset({_c.Counter, _c.OrderedDict, _c.defaultdict})
_int_bytes = int.to_bytes
_float_is_int = float.is_integer
_SET, _DICT, _ITEMS = 1, 2, 3
_FAIL = object()
_END = object()
_CHUNK = 4096
_DEPTH = 8


def _tree_of_leaves(x):
    # x (a list or tuple) is lists and tuples down to str/bytes/int/None leaves, each level all
    # containers or all leaves: marshal's output is then the encoding. Looked at level by level
    # with C iteration (set(map(type, ...))): no Python loop over the elements.
    for depth in range(_DEPTH):
        types = set(map(type, _levels(x, depth)))
        if types <= _LEAF:
            return True
        if not types <= _SEQ:
            return False
    return False


def _levels(x, depth):
    # a lazy iterator over the items `depth` levels below x's own
    it = x
    for _ in range(depth):
        it = _chain(it)
    return it


def _number(x, strict):
    t = type(x)
    if t is complex:
        if strict or x.imag != 0.0:
            return _FAIL
        x, t = x.real, float
    if t is float:
        if strict or not _float_is_int(x):
            return _FAIL
        return int(x)
    return _FAIL


def _feed(x, h, strict):
    """Encode x into h; a frame to push for a container walked item by item; _FAIL if x is not plain."""
    t = type(x)
    if t is str or t is int or t is bytes or x is None:
        h.update(_dumps(x, 2))
        return None
    if t is bool:
        h.update(_dumps(1 if x is True else 0, 2))
        return None
    if t is list or t is tuple:
        n = len(x)
        head = (b"[" if t is list else b"(") + _int_bytes(n, 4, "little", signed=True)
        h.update(head)
        if _tree_of_leaves(x):
            for i in range(0, n, _CHUNK):
                h.update(memoryview(_dumps(x[i:i + _CHUNK], 2))[5:])
            return None
        return [0, iter(x), h]
    if t is set or t is frozenset:
        return [_SET, iter(x), h, [], None, len(x)]
    if t is dict or (not strict and t in _ANSWER_DICTS):
        return [_DICT, _chain(_DICT_ITEMS(x)), h, [], None, len(x)]
    if t is float or t is complex:
        v = _number(x, strict)
        if v is _FAIL:
            return _FAIL
        h.update(_dumps(v, 2))
        return None
    return _FAIL


def digest(value, strict=True):
    """'sha256:<hex>' of a plain value, or None: not plain data, or (strict) holding a float or
    complex number anywhere."""
    root = _sha256()
    top = _feed(value, root, strict)
    if top is _FAIL:
        return None
    stack = [] if top is None else [top]
    while stack:
        fr = stack[-1]
        if fr[0] == 0:
            x = next(fr[1], _END)
            if x is _END:
                stack.pop()
                continue
            r = _feed(x, fr[2], strict)
        else:
            if fr[4] is not None:
                fr[3].append(fr[4].digest())
                fr[4] = None
            x = next(fr[1], _END)
            if x is _END:
                stack.pop()
                acc = fr[3]
                if fr[0] == _DICT:
                    acc = [acc[i] + acc[i + 1] for i in range(0, len(acc), 2)]
                    tag = b"\x02"
                else:
                    tag = b"\x01"
                acc.sort()
                fr[2].update(tag + _int_bytes(fr[5], 8, "little"))
                fr[2].update(b"".join(acc))
                continue
            fr[4] = _sha256()
            r = _feed(x, fr[4], strict)
        if r is _FAIL:
            return None
        if r is not None:
            stack.append(r)
    return "sha256:" + root.hexdigest()
'''

_scope: dict[str, Any] = {"__name__": "eddy_sandbox.digest_walk"}
exec(compile(DIGEST_SOURCE, "<eddy digest>", "exec"), _scope)  # noqa: S102 - the judge's own code

digest: Callable[..., str | None] = _scope["digest"]

# What stands for the result of a digest-compared input that has no digest (not plain data): it
# equals no digest. Every path that compares such an input turns the answer's value into its digest
# first (the candidate's harness, the worker for other languages, strength.py in-process), so an
# oracle's compare only ever sees digests there.
NO_DIGEST = "not plain data (no digest)"


def as_digest(value: Any) -> str:
    """A value compared with an expected output kept as its digest, as the answer's digest."""
    return digest(value, False) or NO_DIGEST
