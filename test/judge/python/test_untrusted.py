"""Issue #30: everything read from the answer's side goes through one total function: a value, or
the answer's failure (Malformed / WireError / a broken channel), never any other exception (which
the worker would report as a judge_error). Property tests over random and malformed inputs, with
fixed seeds so that a failure is reproducible."""

import json
import marshal
import os
import random
import struct
import unittest
from typing import Any

from eddy_judge.candidate import Run, _candidate_message, read_results
from eddy_judge.protocol import Malformed, Partial, read_plain, shares
from eddy_sandbox.sandbox import MAC_BYTES, mac
from eddy_judge.wire import WireError, read_answer

SEEDS = range(4)
ROUNDS = 1500
# Issue #43: ints that hash alike; a set of more than 32 of them is refused unbuilt (HashFlood, a Malformed).
ALIKE = [1 + k * (2**61 - 1) for k in range(40)]


def _plain(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(12 if depth < 6 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 2**31, -(2**70), 10 ** rng.randint(1, 900)])
    if pick == 3:
        return rng.choice([1.5, float("inf"), float("nan"), -0.0, 1e308])
    if pick == 4:
        return "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 6))).encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
    if pick == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 5)))
    items = [_plain(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if pick in (6, 7):
        return items
    if pick == 8:
        return tuple(items)
    hashable = [x for x in items if not isinstance(x, (list, dict, set))]
    if pick == 9 and rng.random() < 0.1:
        return set(ALIKE[: rng.randint(30, 40)]) if rng.random() < 0.7 else dict.fromkeys(ALIKE[: rng.randint(30, 40)], 0)
    if pick == 9:
        try:
            return set(hashable)
        except TypeError:
            return set()
    if pick == 10:
        try:
            return {k: v for k, v in zip(hashable, items)}
        except TypeError:
            return {}
    return 2 + 3j


def _mangle(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    how = rng.randrange(7)
    if how == 0 and b:
        del b[rng.randrange(len(b)) :]  # truncation
    elif how == 1 and b:
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)  # wrong tags, lengths, bytes
    elif how == 2:
        b[rng.randrange(len(b) + 1) : 0] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif how == 3:
        b = bytearray(b"[\x01\x00\x00\x00" * rng.randint(900, 3000) + b"N")  # deep nesting
    elif how == 4:
        n = rng.choice([0x7FFFFFFF, -0x7FFFFFFF, 300_000, 5])
        b = bytearray(b"l" + struct.pack("<i", n) + bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))))  # huge numbers
    elif how == 5:
        b = bytearray(b"u" + struct.pack("<i", 4) + bytes([0xFF, 0xC0, 0x80, 0xED]))  # invalid UTF-8
    else:
        b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))  # trailing bytes
    return bytes(b)


class FramesAreATotalFunction(unittest.TestCase):
    def test_read_plain_gives_a_value_or_malformed(self) -> None:
        for seed in SEEDS:
            rng = random.Random(seed)
            for _ in range(ROUNDS):
                data = _mangle(rng, marshal.dumps(_plain(rng)))
                try:
                    read_plain(data)
                except Malformed:
                    pass

    def test_partial_messages_give_values_or_malformed(self) -> None:
        for seed in SEEDS:
            rng = random.Random(100 + seed)
            for _ in range(ROUNDS):
                data = _mangle(rng, marshal.dumps(("r", rng.randint(0, 3), _plain(rng), (_plain(rng),))))
                try:
                    Partial(data, 2).finish()
                except Malformed:
                    pass

    def test_authenticated_frames_with_any_payload_leave_the_run_broken_or_read(self) -> None:
        key = os.urandom(32)
        for seed in SEEDS:
            rng = random.Random(200 + seed)
            for _ in range(ROUNDS // 3):
                run = Run()
                payloads = [marshal.dumps(("pre", None, "")), marshal.dumps(("ready",)), marshal.dumps(("loaded",))]
                payloads.append(_mangle(rng, marshal.dumps(("r", 0, _plain(rng), None))))
                for seq, payload in enumerate(payloads):
                    _candidate_message(run, mac(key, seq, payload) + payload, key)
                read_results(run)  # the values of result frames, read after the run
                # A run is broken or holds what it read: no other outcome, no exception.
                self.assertTrue(run.broken is not None or run.tamper is not None or all(isinstance(r, tuple) for r in run.results.values()))
        self.assertEqual(MAC_BYTES, 16)


def _wire(rng: random.Random, depth: int = 0) -> object:
    pick = rng.randrange(14 if depth < 5 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, "x", 1, -1.5])
    if pick == 2:
        return {"float": rng.choice([10**400, -(10**400), "9" * 400, "nan", [], {"x": 1}, 1e308])}
    if pick == 3:
        return {"int": rng.choice(["12", "9" * 5000, "x", 12, None])}
    if pick == 4:
        return {"num": rng.choice(["12", "-0", "9" * 400, 1.5])}
    if pick == 5:
        return {rng.choice(["opaque", "nope", "", "arr"]): rng.choice([10**400, "t", None])}
    items = [_wire(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if pick in (6, 7):
        return {"seq": items}
    if pick == 8:
        if rng.random() < 0.1:
            return {"set": [{"int": str(x)} for x in ALIKE[: rng.randint(30, 40)]]}
        return {"set": items}
    if pick == 9:
        return {"map": [[a, b] for a, b in zip(items, items[1:])] + rng.choice([[], [[1]], ["x"]])}
    if pick == 10:
        return {"arr": [[rng.randint(0, 3), x] for x in items], "list": rng.choice([True, False, "yes"])}
    if pick == 11:
        return {"seq": items, "extra": 1}
    return items


class ForeignLinesAreATotalFunction(unittest.TestCase):
    def test_read_answer_gives_a_value_or_wire_error(self) -> None:
        likes = [None, 1.0, 1, (1, 2.0), [1.0], {1.0: 2.0}, {1, 2}, frozenset({(1,)}), "s"]
        for seed in SEEDS:
            rng = random.Random(300 + seed)
            for _ in range(ROUNDS):
                text = json.dumps(_wire(rng))
                if rng.random() < 0.2:
                    text = rng.choice(["[" * 100_000, text[: rng.randrange(len(text) + 1)], '{"float": 1e999999}', "\udcff", '{"float": ' + "9" * 400 + "}"])
                meta = json.dumps({"after": [_wire(rng)], "shares": rng.choice([True, 1])}) if rng.random() < 0.7 else rng.choice(["[", "1", "{}"])
                try:
                    read_answer(text, meta, rng.choice(likes), (rng.choice(likes),))
                except WireError:
                    pass

    def test_the_400_digit_float_of_the_issue_is_the_answers_error(self) -> None:
        with self.assertRaises(WireError):
            read_answer('{"float": ' + "9" * 400 + "}", "{}", 1.0, ())


class NewObjectAtEveryDepth(unittest.TestCase):
    def test_an_inner_list_of_the_argument_is_shared(self) -> None:
        matrix = [[1, 2], [3, 4]]
        self.assertTrue(shares([matrix[0], [3, 4]], (matrix,)))
        self.assertTrue(shares({"k": (matrix[1],)}, (matrix,)))
        self.assertTrue(shares(matrix, (matrix,)))
        self.assertFalse(shares([[1, 2], [3, 4]], (matrix,)))
        # Immutable values may be shared: they cannot be changed through the answer.
        row = (1, 2)
        self.assertFalse(shares([row], ([row],)))


if __name__ == "__main__":
    unittest.main()
