"""Values between the trusted worker and a candidate's process.

The candidate side writes frames (4-byte big-endian length, then `marshal` bytes: a C function it
captured before any candidate code ran, so patching a Python encoder changes nothing). The worker
never calls `marshal.loads` on them: `read_plain` below rebuilds only plain values (None, bool,
int, float, complex, str, bytes, tuple, list, dict, set, frozenset), with bounded depth, size and
integer length, and no cycles. Anything else is `Malformed`: the candidate's failure. No set or
dict is built from the candidate's keys before `refuse_flood` has looked at their hashes (issue #43).
"""

from __future__ import annotations

import struct
from collections import Counter
from typing import Any, Callable

MAX_DEPTH = 1000
MAX_INT_DIGITS = 200_000  # 15-bit digits: about 900,000 decimal digits
# Shared references make a small stream stand for a huge value (`L = [L, L]` 32 times: 2**32
# elements). Hashing, comparing and printing walk the expanded value, so it is bounded too.
MAX_EXPANDED = 10_000_000
DETAIL_CHARS = 300


class Malformed(Exception):
    """Bytes from a candidate's process that are not a well-formed plain value."""


class TooLarge(Malformed):
    """A well-formed value too large to judge once shared references are expanded."""


# ---- hash-based containers built from the answer's keys (issue #43) ----
#
# CPython hashes an int as its value modulo 2**61 - 1 (a float as the rational it is, a tuple and a
# frozenset from their items' hashes), so an answer can hand back a set whose elements all hash
# alike (1 + k * (2**61 - 1) for k < 200,000). Building such a set, or a dict on such keys,
# compares each key with every one before it that shares its hash: quadratic work in C, where no
# deadline can interrupt it (202 s for the 200,000 of the issue). The answer paid for its own set
# once (or never: a copy of a set costs no hashing, and JavaScript hashes otherwise); the trusted
# side would pay again for every copy. So wherever the trusted side builds a set or a dict from
# keys the answer chose (the frame reader below, wire.py for other languages, compare.py), it first
# calls `refuse_flood` on the keys: keys that hash alike in numbers whose building would cost more
# than a bound (HASH_WORK_FLOOR) is the answer's resource_exhaustion (`HashFlood`), decided before
# anything is built. Keys with distinct hashes
# are spread by CPython's perturbed probing (every bit of the hash is used within a few probes);
# str and bytes hashes are keyed by a secret per process, so only numbers, tuples and frozensets of
# them can be made to collide, but every key is checked alike.
HASH_SHARE = 32


class HashFlood(TooLarge):
    """A set or dict whose keys hash alike: building it would take quadratic time."""


# What building one set or dict may cost in comparisons of keys that hash alike (the sum, over
# hash values, of the square of how many distinct keys share it): a powers-of-two answer (61 hash
# values, each shared by n / 61 keys) of up to ~8,000 elements is within it; 200,000 keys of one
# hash would be 4e10.
HASH_WORK_FLOOR = 1 << 21


def hash_flood(keys: list[Any]) -> tuple[int, int] | None:
    """None when building a container of these keys costs at most max(HASH_WORK_FLOOR,
    HASH_SHARE x n) comparisons of keys that hash alike; else (how many keys share the hash that
    crossed it, how many keys). Raises TypeError for an unhashable key, as building the container
    would. Linear, with C loops, up to that bound: `hash` of an exact plain value runs no answer code.

    The hashes are themselves ints of 64 bits at most, whose own hashes (their value modulo
    2**61 - 1) at most ten of them share, so the set and Counter of hashes here cannot be flooded."""
    n = len(keys)
    if n <= HASH_SHARE:
        return None  # at most n keys can share a hash
    hashes = list(map(hash, keys))
    if n - len(set(hashes)) < HASH_SHARE:
        return None  # a hash shared by m keys leaves m - 1 of them out of the set: m <= HASH_SHARE
    # Some hash is shared by more than HASH_SHARE keys, or there are duplicates (a list compared as
    # a multiset holds many equal items, which are fine): count the distinct keys of each such hash,
    # adding up what building would cost (d keys of one hash: d * d), and stop once over the bound.
    counts = Counter(hashes)
    heavy: dict[int, set[Any]] = {h: set() for h, c in counts.items() if c > HASH_SHARE}
    bound = max(HASH_WORK_FLOOR, HASH_SHARE * n)
    work = 0
    for h, k in zip(hashes, keys):
        group = heavy.get(h)
        if group is not None:
            d = len(group)
            group.add(k)
            if len(group) > d:
                work += 2 * d + 1
                if work > bound:
                    return counts[h], n
    return None


def refuse_flood(keys: list[Any], what: str = "a set", items: str = "elements") -> None:
    """HashFlood when building a container of these keys would be quadratic (see hash_flood)."""
    if len(keys) > HASH_SHARE:
        worst = hash_flood(keys)
        if worst is not None:
            raise HashFlood(
                "%s whose %s hash alike: %d of its %d %s share one hash value (the judge builds no set or dict whose keys that hash alike would cost it more than %d comparisons: the work is quadratic)"
                % (what, items, worst[0], worst[1], items, max(HASH_WORK_FLOOR, HASH_SHARE * worst[1]))
            )


# marshal's type codes (Python/marshal.c), as the ints the reader compares.
_NONE, _TRUE, _FALSE, _INT, _LONG, _FLOAT, _COMPLEX, _BYTES, _REF, _DICT, _NULL = (ord(c) for c in "NTFilgysr{0")
_TUPLE, _SMALL_TUPLE, _LIST, _SET, _FROZENSET = (ord(c) for c in "()[<>")
_FLAGGED_INT = _INT | 0x80
_SEQUENCES = frozenset((_TUPLE, _SMALL_TUPLE, _LIST, _SET, _FROZENSET))
_TEXTS = frozenset(ord(c) for c in "utaA")
_SHORT_TEXTS = frozenset(ord(c) for c in "zZ")
_RESULT_TAGS = {ord(c): c for c in "roe"}
_I32 = struct.Struct("<i").unpack_from
_F64 = struct.Struct("<d").unpack
_C128 = struct.Struct("<dd").unpack
_BE32 = struct.Struct(">I").unpack_from


class _Incomplete:
    """A container still being read: a reference to it would make a cycle."""


_INCOMPLETE = _Incomplete()


def _digits_to_int(ds: list[int]) -> int:
    # Divide and conquer: a long int from 15-bit digits without quadratic shifting.
    if len(ds) <= 64:
        x = 0
        for d in reversed(ds):
            x = (x << 15) | d
        return x
    mid = len(ds) // 2
    return _digits_to_int(ds[:mid]) | (_digits_to_int(ds[mid:]) << (15 * mid))


class _Reader:
    def __init__(self, data: bytes, int_digits: int = MAX_INT_DIGITS) -> None:
        self.data = data
        self.int_digits = int_digits
        self.pos = 0
        self.refs: list[object] = []
        self.sizes: list[int] = []  # expanded size of each registered reference
        self.expanded = 0  # expanded size of everything read so far

    def grow(self, n: int) -> None:
        self.expanded += n
        if self.expanded > MAX_EXPANDED:
            raise TooLarge("the answer holds more than %d values once shared references are expanded" % MAX_EXPANDED)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise Malformed("truncated value")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def i32(self) -> int:
        return int(struct.unpack("<i", self.take(4))[0])

    def u8(self) -> int:
        return self.take(1)[0]

    def count(self, n: int) -> int:
        # Each element needs at least one byte: a length beyond what is left is a lie.
        if n < 0 or n > len(self.data) - self.pos:
            raise Malformed("bad length")
        return n

    def value(self, depth: int) -> object:
        # Type codes compared as ints, no closure per value, and the items of a container that
        # are plain small ints (most answers are lists of them) read in its own loop: the
        # worker reads every result of every verdict, on the verdict's path (issue #36).
        if depth > MAX_DEPTH:
            raise Malformed("value nested deeper than %d" % MAX_DEPTH)
        data = self.data
        pos = self.pos
        if pos >= len(data):
            raise Malformed("truncated value")
        code = data[pos]
        self.pos = pos + 1
        t = code & 0x7F
        slot = -1
        start = self.expanded
        if t != _REF:
            self.grow(1)
        if code & 0x80:
            slot = len(self.refs)
            self.refs.append(_INCOMPLETE)
            self.sizes.append(0)
        v: object
        if t == _INT:
            v = self.i32()
        elif t in _TEXTS:
            v = self._text(self.i32())
        elif t in _SHORT_TEXTS:
            v = self._text(self.u8())
        elif t in _SEQUENCES:
            # Read here rather than in a helper: one Python frame per level of nesting.
            n = self.count(self.u8() if t == _SMALL_TUPLE else self.i32())
            items: list[object] = []
            append = items.append
            end = len(data)
            inner = depth + 1
            refs = self.refs
            sizes = self.sizes
            for _ in range(n):
                pos = self.pos
                # The items a list of ints is made of, read as value() reads them: a plain int,
                # an int other objects hold too ('i' with the reference flag: small ints are
                # shared, and so is an int of the arguments the answer returns), and a
                # reference to one already read. Anything else (or too deep) goes to value().
                code = data[pos] if inner <= MAX_DEPTH and pos + 5 <= end else -1
                if code == _INT:
                    self.grow(1)
                    append(_I32(data, pos + 1)[0])
                    self.pos = pos + 5
                elif code == _FLAGGED_INT:
                    self.grow(1)
                    x = _I32(data, pos + 1)[0]
                    refs.append(x)
                    sizes.append(1)
                    append(x)
                    self.pos = pos + 5
                elif code == _REF:
                    i = _I32(data, pos + 1)[0]
                    if i < 0 or i >= len(refs) or refs[i] is _INCOMPLETE:
                        raise Malformed("bad or cyclic reference")
                    self.grow(sizes[i])
                    append(refs[i])
                    self.pos = pos + 5
                else:
                    append(self.value(inner))
            if t == _TUPLE or t == _SMALL_TUPLE:
                v = tuple(items)
            elif t == _LIST:
                v = items
            else:
                try:
                    if n > HASH_SHARE:
                        refuse_flood(items)
                    v = set(items) if t == _SET else frozenset(items)
                except TypeError:
                    raise Malformed("unhashable set element")
        elif t == _REF:
            i = self.i32()
            if i < 0 or i >= len(self.refs) or self.refs[i] is _INCOMPLETE:
                raise Malformed("bad or cyclic reference")
            self.grow(self.sizes[i])
            return self.refs[i]
        elif t == _NONE:
            v = None
        elif t == _TRUE:
            v = True
        elif t == _FALSE:
            v = False
        elif t == _LONG:
            n = self.i32()
            size = abs(n)
            if size > self.int_digits:
                raise Malformed("integer too large")
            raw = self.take(2 * size)
            ds = list(struct.unpack("<%dH" % size, raw))
            if any(d >= 1 << 15 for d in ds):
                raise Malformed("bad integer digit")
            x = _digits_to_int(ds)
            v = -x if n < 0 else x
        elif t == _FLOAT:
            v = float(_F64(self.take(8))[0])
        elif t == _COMPLEX:
            re_, im = _C128(self.take(16))
            v = complex(re_, im)
        elif t == _BYTES:
            v = bytes(self.take(self.count(self.i32())))
        elif t == _DICT:
            keys: list[object] = []
            vals: list[object] = []
            while True:
                if self.pos >= len(data):
                    raise Malformed("truncated dict")
                if data[self.pos] == _NULL:
                    self.pos += 1
                    break
                keys.append(self.value(depth + 1))
                vals.append(self.value(depth + 1))
            try:
                if len(keys) > HASH_SHARE:
                    refuse_flood(keys, "a dict", "keys")
                v = dict(zip(keys, vals))
            except TypeError:
                raise Malformed("unhashable dict key")
        else:
            raise Malformed("unexpected type code %r" % chr(t))
        if slot >= 0:
            self.refs[slot] = v
            self.sizes[slot] = self.expanded - start
        return v

    def _text(self, n: int) -> str:
        raw = self.take(self.count(n))
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise Malformed("bad text")


def untrusted(read: Callable[..., Any], *args: Any) -> Any:
    """The one total function for bytes from the answer's side: read(*args) gives a value or
    raises Malformed, whatever the bytes are (a huge number, a wrong tag, deep nesting,
    truncation, invalid UTF-8): never any other exception, so never a judge_error."""
    try:
        return read(*args)
    except Malformed:
        raise
    except Exception as e:
        raise Malformed("unreadable value (%s)" % type(e).__name__) from None


def _read_plain(data: bytes) -> object:
    r = _Reader(data)
    v = r.value(0)
    if r.pos != len(data):
        raise Malformed("trailing bytes after a value")
    return v


def read_plain(data: bytes) -> object:
    """A plain value from marshal bytes written by a candidate's process; Malformed otherwise."""
    return untrusted(_read_plain, data)


class Partial:
    """A tuple read only as far as its first items; the rest is read on demand (`finish`), so
    that reading a candidate's results never delays the watch on its deadline."""

    def __init__(self, data: bytes, first: int, int_digits: int = MAX_INT_DIGITS) -> None:
        self._r = _Reader(data, int_digits)
        self.size = 0
        self.head: list[object] = []
        untrusted(self._start, first)

    @classmethod
    def result(cls, data: bytes, int_digits: int = MAX_INT_DIGITS) -> Partial | None:
        """A result message, (tag, index, value, arguments) with tag "r", "o" or "e", read as far as
        its index from the one layout CPython's marshal gives it (a small tuple of 4, a short
        ASCII tag, a 32-bit int), as the constructor would read it; None for any other bytes,
        which the constructor then reads. The worker reads one such message per call while the
        answer runs (issue #36): this reads it in a few byte comparisons."""
        if len(data) < 10 or data[1] != 4 or data[3] != 1 or data[4] not in _RESULT_TAGS:
            return None
        c0, c2, c5 = data[0], data[2], data[5]
        if c0 & 0x7F != _SMALL_TUPLE or c2 & 0x7F not in _SHORT_TEXTS or c5 & 0x7F != _INT:
            return None
        part = cls.__new__(cls)
        r = part._r = _Reader(data, int_digits)
        tag = _RESULT_TAGS[data[4]]
        i = _I32(data, 6)[0]
        # What value() leaves behind for these three: a slot for each flagged one (the tuple's
        # never completes), and one value each for the tag and the index.
        if c0 & 0x80:
            r.refs.append(_INCOMPLETE)
            r.sizes.append(0)
        if c2 & 0x80:
            r.refs.append(tag)
            r.sizes.append(1)
        if c5 & 0x80:
            r.refs.append(i)
            r.sizes.append(1)
        r.expanded = 2
        r.pos = 10
        part.size = 4
        part.head = [tag, i]
        return part

    def _start(self, first: int) -> None:
        code = self._r.u8()
        t = chr(code & 0x7F)
        if t not in "()":
            raise Malformed("a message that is not a tuple")
        if code & 0x80:
            self._r.refs.append(_INCOMPLETE)
            self._r.sizes.append(0)
        self.size = self._r.count(self._r.u8() if t == ")" else self._r.i32())
        self.head = [self._r.value(1) for _ in range(min(first, self.size))]

    def _rest(self) -> list[object]:
        rest = [self._r.value(1) for _ in range(self.size - len(self.head))]
        if self._r.pos != len(self._r.data):
            raise Malformed("trailing bytes after a value")
        return rest

    def finish(self) -> list[object]:
        """The remaining items; Malformed when they are not plain values or bytes are left over."""
        return untrusted(self._rest)

    @property
    def expanded(self) -> int:
        """How many values the message holds once shared references are expanded."""
        return self._r.expanded


def frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


class FrameBuffer:
    """Splits a byte stream into frames; `limit` caps the total bytes accepted."""

    def __init__(self, limit: int) -> None:
        self.buf = bytearray()
        self.total = 0
        self.limit = limit

    def feed(self, chunk: bytes) -> list[bytes]:
        self.total += len(chunk)
        if self.total > self.limit:
            raise OverflowError("too much output")
        buf = self.buf
        buf += chunk
        out: list[bytes] = []
        # The frames in the buffer, then what they took cut off once (a chunk holds many).
        pos = 0
        end = len(buf)
        while end - pos >= 4:
            stop = pos + 4 + _BE32(buf, pos)[0]
            if stop > end:
                break
            out.append(bytes(buf[pos + 4 : stop]))
            pos = stop
        if pos:
            del buf[:pos]
        return out

    @property
    def pending(self) -> int:
        return len(self.buf)


class _Full(Exception):
    pass


def short(v: object, limit: int = DETAIL_CHARS) -> str:
    """repr(v) cut at `limit` characters, in work bounded by `limit` whatever v holds (shared
    references, huge integers, deep nesting): plain containers are walked, not repr'd whole."""
    out: list[str] = []
    size = 0

    def put(text: str) -> None:
        nonlocal size
        out.append(text)
        size += len(text)
        if size > limit:
            raise _Full

    def walk(x: object, depth: int) -> None:
        t = type(x)
        if depth > 50:
            put("...")
        elif t is list or t is tuple or t is set or t is frozenset:
            seq: Any = x
            if t is frozenset:
                put("frozenset(")
            if not seq and t in (set, frozenset):
                put("set()" if t is set else "")
            else:
                put("[" if t is list else "(" if t is tuple else "{")
                for k, item in enumerate(seq):
                    if k:
                        put(", ")
                    walk(item, depth + 1)
                if t is tuple and len(seq) == 1:
                    put(",")
                put("]" if t is list else ")" if t is tuple else "}")
            if t is frozenset:
                put(")")
        elif t is dict:
            d: Any = x
            put("{")
            for k, (key, value) in enumerate(d.items()):
                if k:
                    put(", ")
                walk(key, depth + 1)
                put(": ")
                walk(value, depth + 1)
            put("}")
        elif t is int and x.bit_length() > 4 * limit:  # type: ignore[union-attr]
            put("<int of %d bits>" % x.bit_length())  # type: ignore[union-attr]
        elif t in (str, bytes):
            put(repr(x[: limit + 1]))  # type: ignore[index]
        else:
            try:
                put(repr(x))
            except _Full:
                raise
            except BaseException:
                put("<unprintable %s>" % t.__name__)

    try:
        walk(v, 0)
    except _Full:
        pass
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_CONTAINERS = (list, dict, set, bytearray)


def _objects(root: object, budget: int) -> tuple[set[int], int]:
    """ids of the distinct containers reachable from root (each visited once), and budget left."""
    seen: set[int] = set()
    todo = [root]
    while todo and budget > 0:
        x = todo.pop()
        budget -= 1
        t = type(x)
        if t not in (list, tuple, set, frozenset, dict) or id(x) in seen:
            continue
        seen.add(id(x))
        if t is dict:
            todo.extend(x.values())  # type: ignore[attr-defined]
        else:
            todo.extend(x)  # type: ignore[arg-type]
    return seen, budget


def shares(value: object, args: tuple[Any, ...], budget: int = MAX_EXPANDED) -> bool:
    """Whether `value` is, or holds at any depth, a mutable object of the arguments at any depth
    (the same identity: the caller's list, or a list inside it). Each distinct object is visited
    once, so the work is linear in what came back."""
    reach, budget = _objects(args, budget)
    mutable = {id(x) for x in _mutables(args, reach)}
    if not mutable:
        return False
    found, _ = _objects(value, budget)
    return not mutable.isdisjoint(found)


def _mutables(args: tuple[Any, ...], reach: set[int]) -> list[object]:
    out: list[object] = []
    seen: set[int] = set()
    todo: list[object] = list(args)
    while todo:
        x = todo.pop()
        if id(x) in seen or id(x) not in reach:
            continue
        seen.add(id(x))
        t = type(x)
        if t in _CONTAINERS:
            out.append(x)
        if t is dict:
            todo.extend(x.values())  # type: ignore[attr-defined]
        elif t in (list, tuple, set, frozenset):
            todo.extend(x)  # type: ignore[arg-type]
    return out


def exc_line(e: BaseException) -> str:
    name = type(e).__name__
    try:
        msg = str(e)
    except BaseException:
        msg = ""
    return (name + ": " + msg if msg else name)[:DETAIL_CHARS]


Writer = Callable[[bytes], None]
