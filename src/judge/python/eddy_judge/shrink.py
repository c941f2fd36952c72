"""The smallest input on which an answer and the model solution still differ.

A template's random inputs are what its `inputs(rng, **params)` makes of the draws it takes from a
random.Random. Shrinking edits those draws, as Hypothesis shrinks its choice sequence, not the
values: an input replayed from edited draws is one the template itself could have drawn, so a
shrunk input never leaves the domain the question states, whatever shape the template gives it.
Fewer draws mean shorter lists and strings; smaller draws mean smaller numbers and earlier choices.

This module proposes and orders inputs; the trusted worker runs the model solution on each (an
input it rejects is no input) and the answer in its sandbox (verdicts.py), on this side only.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Iterator, Sequence

# random() returns multiples of 2**-53: a draw of it is kept as that integer.
_FLOAT_BITS = 53


class DrawLimit(Exception):
    """Replayed draws ran a generator past its limit (a loop that only ends on a large draw)."""


class Draws(random.Random):
    """A random.Random whose primitive draws (getrandbits, random) are recorded from `source`, or
    replayed from `replay` (zeros once it runs out). Every other method of random.Random (randint,
    choice, shuffle, sample, uniform, choices…) is built on these two, so it replays too."""

    def __init__(self, source: random.Random | None = None, replay: Sequence[int] | None = None, limit: int = 100_000) -> None:
        self._source = source
        self._replay = list(replay) if replay is not None else []
        self._limit = limit
        self.taken: list[int] = []
        super().__init__(0)

    def _next(self) -> int:
        if len(self.taken) >= self._limit:
            raise DrawLimit()
        i = len(self.taken)
        return self._replay[i] if i < len(self._replay) else 0

    def getrandbits(self, k: int) -> int:
        if self._source is not None:
            v = self._source.getrandbits(k)
        else:
            v = self._next() & ((1 << k) - 1) if k > 0 else 0
        self.taken.append(v)
        return v

    def random(self) -> float:
        if self._source is not None:
            x = self._source.random()
            self.taken.append(int(x * (1 << _FLOAT_BITS)))
            return x
        v = self._next() & ((1 << _FLOAT_BITS) - 1)
        self.taken.append(v)
        return v / float(1 << _FLOAT_BITS)


def recorded_draws(inputs: Callable[[random.Random], tuple[Any, ...]], seed: int, index: int) -> tuple[list[int], tuple[Any, ...]]:
    """The draws input `index` of a seed took (inputs 0..index-1 drawn first on the same rng, as
    the judge drew them) and the input they made."""
    rec = Draws(source=random.Random(int(seed)))
    for _ in range(index):
        inputs(rec)
    start = len(rec.taken)
    made = inputs(rec)
    return rec.taken[start:], made


def replayed(inputs: Callable[[random.Random], tuple[Any, ...]], draws: Sequence[int], limit: int) -> tuple[Any, ...]:
    """The input a generator makes of these draws (DrawLimit past `limit` draws)."""
    return inputs(Draws(replay=draws, limit=limit))


def size_key(x: Any) -> tuple[int, int, str]:
    """Smaller first: fewer values (elements of containers, counted all the way down), then a
    shorter text, then the text itself (a total order, so shrinking always ends)."""
    n = 0
    todo = [x]
    while todo:
        v = todo.pop()
        n += 1
        if isinstance(v, (list, tuple, set, frozenset)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
    r = repr(x)
    return n, len(r), r


def proposals(draws: Sequence[int]) -> Iterator[list[int]]:
    """Edited draws, boldest first: the tail cut, blocks deleted, blocks zeroed, then each draw
    made smaller (zero, halved, one less)."""
    d = list(draws)
    n = len(d)
    k = n // 2
    while k >= 1:
        yield d[:n - k]
        k //= 2
    for size in (8, 4, 2, 1):
        for start in range(0, n - size + 1):
            yield d[:start] + d[start + size:]
    for size in (8, 4, 2):
        for start in range(0, n - size + 1):
            if any(d[start:start + size]):
                yield d[:start] + [0] * size + d[start + size:]
    for i, v in enumerate(d):
        if v == 0:
            continue
        for smaller in (0, v >> 1, v - 1):
            if smaller < v:
                yield d[:i] + [smaller] + d[i + 1:]


class Shrunk:
    """Where shrinking ended: the input, its draws, how many inputs the answer was run on to get
    there and in how many steps it got smaller."""

    def __init__(self, args: tuple[Any, ...], draws: list[int]) -> None:
        self.args = args
        self.draws = draws
        self.tried = 0
        self.steps = 0


def shrink(
    draws: list[int],
    args: tuple[Any, ...],
    make: Callable[[list[int]], tuple[Any, ...] | None],
    first_differing: Callable[[list[tuple[Any, ...]]], int | None],
    batch: int = 32,
    max_tried: int = 512,
) -> Shrunk:
    """Greedy shrinking: from the failing input's draws, propose edits; `make` turns draws into an
    input (None where the generator or the model solution rejects them); inputs strictly smaller
    than the current one go to `first_differing` in batches, which runs the answer on them and
    names the smallest on which it still differs (or None). Ends when no edit of the current
    input is smaller and still differs, or after `max_tried` inputs."""
    out = Shrunk(args, list(draws))
    key = size_key(args)
    while out.tried < max_tried:
        improved = False
        seen: set[str] = set()
        pending: list[tuple[list[int], tuple[Any, ...]]] = []
        edits = proposals(out.draws)
        exhausted = False
        while not improved and not exhausted and out.tried < max_tried:
            pending.clear()
            for d in edits:
                x = make(d)
                if x is None:
                    continue
                kx = size_key(x)
                if kx >= key or kx[2] in seen:
                    continue
                seen.add(kx[2])
                pending.append((d, x))
                if len(pending) >= min(batch, max_tried - out.tried):
                    break
            else:
                exhausted = True
            if not pending:
                break
            # Smallest first: the answer is stopped at its first differing input, the smallest.
            pending.sort(key=lambda p: size_key(p[1]))
            out.tried += len(pending)
            hit = first_differing([x for _, x in pending])
            if hit is not None:
                out.draws, out.args = pending[hit]
                key = size_key(out.args)
                out.steps += 1
                improved = True
        if not improved:
            break
    return out


# What shrinking may spend on one answer, beyond its verdict: the answer runs on at most this many
# inputs, and no new batch starts after this much wall time (each batch runs under the answer's
# own budget, in its sandbox). A verdict never waits long for its explanation.
MAX_TRIED = 256
WALL_S = 5.0


class Found:
    """The smallest differing input found, with both sides' values as text."""

    def __init__(self, args: tuple[Any, ...], expected: str, actual: str, tried: int, steps: int) -> None:
        self.args = args
        self.expected = expected
        self.actual = actual
        self.tried = tried
        self.steps = steps


def shrink_failure(
    inputs: Callable[[random.Random], tuple[Any, ...]],
    seed: int,
    index: int,
    failing: tuple[Any, ...],
    solve: Callable[[tuple[Any, ...]], Any],
    run_batch: Callable[[list[tuple[Any, ...]], list[Any]], tuple[int, str, str] | None],
    same: Callable[[Any, Any], bool],
) -> Found | None:
    """Random input `index` (0-based among the random inputs of `seed`), on which the answer
    failed, shrunk. `inputs(rng)` is the template's generator; `solve(args)` the model solution
    (raising where it rejects an input); `run_batch(calls, expected)` runs the answer on the calls
    in order and returns (i, expected text, actual text) of the first on which it differs, or None.
    None when the generator does not draw the failing input again (it is not a pure function of
    its rng); steps 0 (and no values) when nothing smaller fails."""
    draws, made = recorded_draws(inputs, seed, index)
    if not same(made, failing):
        return None
    limit = 4 * len(draws) + 64
    expected: dict[str, Any] = {}
    found: list[tuple[str, str]] = []
    deadline = time.monotonic() + WALL_S

    def make(d: list[int]) -> tuple[Any, ...] | None:
        try:
            x = replayed(inputs, d, limit)
            want = solve(x)
        except Exception:
            return None
        expected[repr(x)] = want
        return x

    def first_differing(xs: list[tuple[Any, ...]]) -> int | None:
        if time.monotonic() > deadline:
            return None
        hit = run_batch(xs, [expected[repr(x)] for x in xs])
        if hit is None:
            return None
        found.append((hit[1], hit[2]))
        return hit[0]

    out = shrink(draws, failing, make, first_differing, max_tried=MAX_TRIED)
    if out.steps == 0:
        # Nothing smaller fails: the failing input is already the smallest (its values are the verdict's).
        return Found(failing, "", "", out.tried, 0)
    return Found(out.args, found[-1][0], found[-1][1], out.tried, out.steps)
