"""Issue #43: every trusted operation on an answer's data is bounded. CPython hashes an int as its
value modulo 2**61 - 1, so an answer can send a set whose elements all hash alike; rebuilding it
on the trusted side (the frame reader, wire.py, the comparators) would be quadratic and could not
be interrupted. No set or dict is built there from such keys: the value is the answer's
resource_exhaustion (protocol.HashFlood), decided in linear time before anything is built.

The sizes here are chosen so that each test also fails quickly without the guard (a few seconds
of quadratic work where the guard takes milliseconds), not after minutes."""

import json
import marshal
import time
import unittest
from typing import Any

from eddy_judge.candidate import Run, read_results
from eddy_judge.compare import canonical, named_comparator, strict_equal
from eddy_sandbox.digest import digest
from eddy_judge.protocol import HASH_SHARE, HASH_WORK_FLOOR, HashFlood, Malformed, Partial, TooLarge, hash_flood, read_plain, refuse_flood
from eddy_judge.wire import WireError, WireFlood, read_answer

P = 2**61 - 1  # ints that differ by a multiple of it hash alike
# The most distinct keys of one hash value a small container may hold: building it costs at most
# HASH_WORK_FLOOR comparisons (AT * AT).
AT = int(HASH_WORK_FLOOR**0.5)


def alike(n: int, start: int = 1) -> list[int]:
    """n distinct ints sharing one hash value."""
    return [start + k * P for k in range(n)]


def cpu(f: Any, *args: Any) -> tuple[float, Any]:
    """(CPU seconds, what f raised or returned)."""
    t0 = time.process_time()
    try:
        out: Any = f(*args)
    except Exception as e:
        out = e
    return time.process_time() - t0, out


class TheGuard(unittest.TestCase):
    def test_the_ints_collide(self) -> None:
        self.assertEqual(len({hash(x) for x in alike(1000)}), 1)

    def test_up_to_the_bound_is_built_beyond_it_refused(self) -> None:
        self.assertIsNone(hash_flood(alike(AT)))
        self.assertIsNone(hash_flood(alike(AT) + list(range(10_000, 20_000))))
        self.assertEqual(hash_flood(alike(AT + 1)), (AT + 1, AT + 1))
        self.assertEqual(hash_flood(list(range(1000, 1100)) + alike(2000, 7)), (2000, 2100))
        # Powers of two: 61 hash values, each shared by n / 61 of them: cheap to build, and built.
        self.assertIsNone(hash_flood([2**k for k in range(4000)]))
        with self.assertRaisesRegex(HashFlood, r"a set whose elements hash alike: 1500 of its 1500 elements share one hash value"):
            refuse_flood(alike(1500))

    def test_a_hash_flood_is_the_answers_resource_failure(self) -> None:
        # read_results turns TooLarge into the call's resource error; Malformed would be a broken channel.
        self.assertTrue(issubclass(HashFlood, TooLarge))
        self.assertTrue(issubclass(WireFlood, WireError))

    def test_equal_items_are_not_a_flood(self) -> None:
        # A list compared as a multiset holds many equal items: only distinct ones are counted.
        self.assertIsNone(hash_flood([7] * 100_000))
        self.assertIsNone(hash_flood(alike(HASH_SHARE) * 1000))
        self.assertIsNotNone(hash_flood(alike(AT + 100) * 10))
        # 1, 1.0 and True are one key; -1 and -2 share a hash (CPython's -1 is reserved).
        self.assertIsNone(hash_flood([1, 1.0, True] * 20 + [-1, -2] * 20))

    def test_floats_and_tuples_that_hash_alike_are_counted_too(self) -> None:
        # 0.5 hashes as 2**60; (x,) from its item's hash: a shared item hash, a shared tuple hash.
        self.assertEqual(hash(0.5), hash(2**60))
        self.assertIsNotNone(hash_flood([(x,) for x in alike(AT + 100)]))
        self.assertIsNotNone(hash_flood([frozenset({x}) for x in alike(AT + 100)]))
        # Powers of two 2**(61 j) all hash as 1, as ints and as floats: 34 of them cost 34 * 34
        # comparisons, within the bound (a right answer may hold them).
        self.assertEqual({hash(2.0 ** (61 * j)) for j in range(-17, 17)}, {1})
        self.assertIsNone(hash_flood([2.0 ** (61 * j) for j in range(-17, 17)]))

    def test_an_unhashable_key_raises_type_error_as_building_would(self) -> None:
        with self.assertRaises(TypeError):
            hash_flood([[1]] * 40)

    def test_small_containers_cost_no_hashing(self) -> None:
        class Loud:
            def __hash__(self) -> int:
                raise AssertionError("hashed")

        self.assertIsNone(hash_flood([Loud() for _ in range(HASH_SHARE)]))

    def test_the_guard_is_linear(self) -> None:
        # 200,000 alike (the issue's size: 202 s to build) and as many distinct: milliseconds.
        spent, out = cpu(hash_flood, alike(200_000))
        self.assertEqual(out, (200_000, 200_000))
        self.assertLess(spent, 1.0)
        spent, out = cpu(hash_flood, list(range(200_000)))
        self.assertIsNone(out)
        self.assertLess(spent, 1.0)


class TheFrameReader(unittest.TestCase):
    """protocol.py: marshal bytes the answer's process wrote (a Python answer)."""

    def test_a_colliding_set_frozenset_or_dict_is_refused_before_it_is_built(self) -> None:
        for value, what in ((set(alike(3000)), "a set"), (frozenset(alike(3000)), "a set"), (dict.fromkeys(alike(3000), 0), "a dict")):
            spent, out = cpu(read_plain, marshal.dumps(value))
            self.assertIsInstance(out, HashFlood, what)
            self.assertIn(what + " whose", str(out))
            self.assertLess(spent, 0.5)

    def test_copies_of_one_colliding_set_cost_the_reader_nothing_each(self) -> None:
        # A copy of a set costs the answer no hashing at all (CPython copies the table): 40 copies
        # of 4,000 alike cost the reader ~40 x 0.1 s without the guard.
        s = set(alike(4000))
        data = marshal.dumps([s.copy() for _ in range(40)])
        spent, out = cpu(read_plain, data)
        self.assertIsInstance(out, HashFlood)
        self.assertLess(spent, 0.5)

    def test_a_colliding_set_deep_in_a_value_is_refused(self) -> None:
        out = cpu(read_plain, marshal.dumps([1, (2, {"k": [frozenset(alike(2000))]})]))[1]
        self.assertIsInstance(out, HashFlood)

    def test_ordinary_sets_and_dicts_are_read_as_before(self) -> None:
        for v in (set(range(1000)), frozenset(alike(HASH_SHARE) + list(range(10_000, 12_000))), {i: str(i) for i in range(500)}, {(1, 2): {3.5}}, {1: "a", 1.0: "b"}):
            got = read_plain(marshal.dumps(v))
            self.assertEqual(got, v)
            self.assertIs(type(got), type(v))
        # The first key object stays, the last value wins, as dict insertion does.
        got = read_plain(b"{" + marshal.dumps(1) + marshal.dumps("a") + marshal.dumps(1.0) + marshal.dumps("b") + b"0")
        self.assertEqual(got, {1: "b"})
        self.assertIs(type(next(iter(got))), int)  # type: ignore[arg-type]

    def test_unhashable_keys_are_still_malformed(self) -> None:
        # A tuple holding a list (a forged stream): the answer's broken channel, as before.
        bad = b"<" + (40).to_bytes(4, "little") + (b")\x01[" + (0).to_bytes(4, "little")) * 40
        with self.assertRaisesRegex(Malformed, "unhashable set element"):
            read_plain(bad)

    def test_a_result_frame_holding_a_flood_is_that_calls_resource_error(self) -> None:
        run = Run()
        run.results[0] = Partial(marshal.dumps(("r", 0, set(alike(5000)), None)), 2)
        spent, _ = cpu(read_results, run)
        self.assertIsNone(run.broken)
        got: Any = run.results[0]  # a (tag, kind, text) tuple once read
        tag, kind, text = got
        self.assertEqual((tag, kind), ("e", "resource"))
        self.assertIn("hash alike: 5000 of its 5000 elements", text)
        self.assertLess(spent, 0.5)


def _wire_set(xs: list[int]) -> str:
    return json.dumps({"set": [{"int": str(x)} for x in xs]})


class TheWireReader(unittest.TestCase):
    """wire.py: another language's answer (a JavaScript Set of BigInts, a Ruby Hash...)."""

    def test_a_colliding_set_is_the_answers_flood(self) -> None:
        spent, out = cpu(read_answer, _wire_set(alike(5000)), "{}", {1, 2}, ((1,),))
        self.assertIsInstance(out, WireFlood)
        self.assertIn("a set whose elements hash alike: 5000 of its 5000", str(out))
        self.assertLess(spent, 0.5)

    def test_the_issues_200000_bigints_are_refused_in_linear_time(self) -> None:
        spent, out = cpu(read_answer, _wire_set(alike(200_000)), "{}", None, ())
        self.assertIsInstance(out, WireFlood)
        self.assertLess(spent, 5.0)

    def test_a_colliding_map_and_a_colliding_set_inside_an_argument(self) -> None:
        pairs = json.dumps({"map": [[{"int": str(x)}, 1] for x in alike(3000)]})
        self.assertIsInstance(cpu(read_answer, pairs, "{}", {1: 1}, ())[1], WireFlood)
        php = json.dumps({"arr": [[{"int": str(x)}, 1] for x in alike(3000)], "list": False})
        self.assertIsInstance(cpu(read_answer, php, "{}", None, ())[1], WireFlood)
        meta = json.dumps({"after": [{"set": [{"int": str(x)} for x in alike(3000)]}]})
        self.assertIsInstance(cpu(read_answer, '{"int": "1"}', meta, 1, ({1},))[1], WireFlood)

    def test_ordinary_sets_and_maps_are_read_as_before(self) -> None:
        value, _, _ = read_answer(_wire_set(list(range(1000)) + alike(HASH_SHARE, 5000)), "{}", {1}, ())
        self.assertEqual(value, set(range(1000)) | set(alike(HASH_SHARE, 5000)))
        value, _, _ = read_answer(_wire_set(list(range(100))), "{}", frozenset({1}), ())
        self.assertIs(type(value), frozenset)
        # 1 and 1n in a JavaScript Set are one Python element; duplicates are not a flood.
        value, _, _ = read_answer(json.dumps({"set": [{"int": "1"}, {"num": "1"}] * 100}), "{}", None, ())
        self.assertEqual(value, {1})
        pairs = json.dumps({"map": [[{"int": str(i)}, {"num": "2"}] for i in range(100)]})
        value, _, _ = read_answer(pairs, "{}", {i: 1.0 for i in range(100)}, ())
        self.assertEqual(value, {i: 2.0 for i in range(100)})
        self.assertIs(type(value[5]), float)
        self.assertEqual(read_answer(json.dumps({"set": [{"seq": []}] * 40}), "{}", None, ())[0].text, "a set of unhashable values")
        self.assertEqual(read_answer(json.dumps({"map": [[{"seq": [{"int": str(i)}]}, {"int": "1"}] for i in range(40)]}), "{}", None, ())[0].text, "a map with an unhashable key")


class TheComparators(unittest.TestCase):
    """compare.py: `unordered` and `set` hash an answer's list items (canonical forms)."""

    def test_a_list_of_colliding_items_compared_as_a_set_or_multiset_is_unequal_at_once(self) -> None:
        answer = alike(20_000)
        for name in ("unordered", "set"):
            same = named_comparator(name)
            expected: Any = list(range(20_000)) if name == "unordered" else set(range(20_000))
            spent, out = cpu(same, expected, answer)
            self.assertIs(out, False, name)
            self.assertLess(spent, 1.0, name)

    def test_colliding_sets_inside_a_list_compared_as_a_multiset(self) -> None:
        # canonical() of an answer's inner set builds a frozenset: looked at first.
        inner = set(alike(AT + 100))
        with self.assertRaises(HashFlood):
            canonical([inner], True)
        self.assertIs(named_comparator("unordered")([{1}], [inner]), False)
        # The expected side (the model solution's) is not refused.
        self.assertEqual(canonical(inner)[0], "set")

    def test_right_answers_still_compare_equal(self) -> None:
        unordered, as_set = named_comparator("unordered"), named_comparator("set")
        xs = alike(HASH_SHARE) + list(range(10_000))
        self.assertTrue(unordered(xs, list(reversed(xs))))
        self.assertTrue(unordered([0] * 50_000 + [1], [1] + [0] * 50_000))
        self.assertTrue(as_set(set(xs), set(reversed(xs))))
        self.assertTrue(as_set(xs, list(reversed(xs)) * 3))
        self.assertTrue(unordered([1, 1.0], [1.0, 1]))
        self.assertTrue(strict_equal({k: k for k in xs}, {k: k for k in reversed(xs)}))


class TheDigest(unittest.TestCase):
    def test_a_digest_builds_no_set_from_the_values_it_walks(self) -> None:
        # Sets are digested by sorting their elements' digests: colliding elements cost nothing more.
        s = set(alike(3000))
        spent, out = cpu(digest, s)
        self.assertTrue(str(out).startswith("sha256:"))
        self.assertEqual(out, digest(set(reversed(alike(3000)))))
        self.assertLess(spent, 0.5)


if __name__ == "__main__":
    unittest.main()
