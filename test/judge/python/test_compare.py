"""Comparators: type-strict by default (TEAM contract), tolerance only where named."""

import math
import unittest
from collections import Counter, OrderedDict, deque

from eddy_judge.compare import Opaque, canonical, named_comparator, not_plain, strict_equal
from eddy_judge.prepare import MAX_RESULT_BYTES, result_limits
from eddy_judge.protocol import MAX_INT_DIGITS


class StrictEqual(unittest.TestCase):
    def test_types_must_match_all_the_way_down(self) -> None:
        self.assertTrue(strict_equal(3, 3))
        self.assertFalse(strict_equal(3, 3.0))
        self.assertFalse(strict_equal(1, True))
        self.assertFalse(strict_equal([1, 2], (1, 2)))
        self.assertFalse(strict_equal({1, 2}, frozenset({1, 2})))
        self.assertFalse(strict_equal([[1]], [[1.0]]))
        self.assertFalse(strict_equal({1: "a"}, {1.0: "a"}))
        self.assertTrue(strict_equal({1: [2]}, {1: [2]}))
        self.assertFalse(strict_equal({1, 2.0}, {1.0, 2}))

    def test_nan_equals_nan_and_opaque_equals_nothing(self) -> None:
        self.assertTrue(strict_equal(math.nan, float("nan")))
        o = Opaque("<obj>")
        self.assertFalse(strict_equal(o, o))

    def test_canonical_agrees_with_strict_equal(self) -> None:
        values = [1, 1.0, True, [1], (1,), {1}, frozenset({1}), {1: 2}, "1", b"1", None, math.nan]
        for a in values:
            for b in values:
                self.assertEqual(canonical(a) == canonical(b), strict_equal(a, b), (a, b))


    def test_canonical_agrees_with_strict_equal_on_nested_values(self) -> None:
        # strict_equal compares a list's ints and strings in its own loop (the worker compares
        # every result of every verdict): it must still agree with canonical() on mixed nesting.
        import random

        rng = random.Random(36)
        atoms: list[object] = [0, 1, True, False, 1.0, 0.0, math.nan, "a", "", "1", None, 2**70, -1, (), [], set(), {}]

        def value(depth: int = 0) -> object:
            r = rng.random()
            if depth > 3 or r < 0.4:
                return rng.choice(atoms)
            if r < 0.6:
                return [value(depth + 1) for _ in range(rng.randint(0, 4))]
            if r < 0.75:
                return tuple(value(depth + 1) for _ in range(rng.randint(0, 4)))
            if r < 0.9:
                return {rng.choice([1, "k", 2.0, True]): value(depth + 1) for _ in range(rng.randint(0, 3))}
            return [rng.randint(0, 3) for _ in range(3)]

        agreed = 0
        for _ in range(20_000):
            a = value()
            b = a if rng.random() < 0.3 else value()
            self.assertEqual(canonical(a) == canonical(b), strict_equal(a, b), (a, b))
            self.assertEqual(canonical(a, True), canonical(a))  # an answer's forms are the same forms
            agreed += strict_equal(a, b)
        self.assertGreater(agreed, 1000)

class Named(unittest.TestCase):
    def test_unordered_is_a_multiset_of_strict_elements(self) -> None:
        cmp = named_comparator("unordered")
        self.assertTrue(cmp([1, 2, 2], [2, 1, 2]))
        self.assertFalse(cmp([1, 2, 2], [2, 1, 1]))
        self.assertFalse(cmp([1, 2], [2.0, 1]))
        self.assertFalse(cmp([1, 2], (2, 1)))

    def test_set_accepts_any_order_but_a_set_answer_must_be_a_set(self) -> None:
        cmp = named_comparator("set")
        self.assertTrue(cmp([1, 2, 2], [2, 1]))
        self.assertTrue(cmp({1, 2}, frozenset({1, 2})))
        self.assertFalse(cmp({1, 2}, [1, 2]))
        self.assertFalse(cmp({1, 2}, {1.0, 2}))

    def test_an_answer_whose_items_hash_alike_is_unequal_and_never_hashed_into_a_set(self) -> None:
        # Issue #43: ints 2**61 - 1 apart hash alike; 12,000 of them hashed into one set or Counter
        # take seconds of uninterruptible work (quadratic), refused here in milliseconds.
        import time

        from eddy_judge.protocol import HASH_SHARE

        alike = [1 + k * (2**61 - 1) for k in range(12_000)]
        for name, expected in (("unordered", list(range(12_000))), ("set", set(range(12_000))), ("set", list(range(12_000)))):
            t0 = time.process_time()
            self.assertFalse(named_comparator(name)(expected, alike), name)
            self.assertFalse(named_comparator(name)([{1}], [set(alike[:2000])]), name)
            self.assertLess(time.process_time() - t0, 0.5, name)
        # Up to the bound, and any number of equal items, compare as before.
        few = alike[:HASH_SHARE] + list(range(5000))
        self.assertTrue(named_comparator("unordered")(few, few[::-1]))
        self.assertTrue(named_comparator("set")(few, few[::-1] * 2))
        self.assertTrue(named_comparator("set")(set(few), set(few[::-1])))
        self.assertTrue(named_comparator("unordered")([alike[1]] * 10_000, [alike[1]] * 10_000))

    def test_float_tolerance_only_on_numbers(self) -> None:
        cmp = named_comparator("float:1e-6")
        self.assertTrue(cmp(1.0, 1.0 + 1e-9))
        self.assertTrue(cmp([1.0, (2.0,)], [1.0000000001, (2.0,)]))
        self.assertFalse(cmp(1.0, 1.1))
        self.assertFalse(cmp(True, 1.0))
        self.assertFalse(cmp([1.0], (1.0,)))
        with self.assertRaises(ValueError):
            named_comparator("float:lots")
        with self.assertRaises(ValueError):
            named_comparator("fuzzy")


if __name__ == "__main__":
    unittest.main()


class NotPlain(unittest.TestCase):
    def test_standard_containers_are_rebuilt_whole_and_compare_as_in_process(self) -> None:
        letters = {chr(c): c for c in range(65, 123)}  # a repr far past 300 characters
        got = not_plain(("Counter({...})", ("Counter", letters)))
        self.assertIs(type(got), Counter)
        self.assertEqual(got, Counter(letters))
        self.assertEqual(got, dict(letters))  # a Counter equals a dict of the same counts, as in EvalPlus
        self.assertNotEqual(got, Counter({**letters, "A": 0, "z": 1}))
        self.assertEqual(not_plain(("OrderedDict()", ("OrderedDict", {}))), OrderedDict())
        self.assertEqual(not_plain(("deque([1])", ("deque", [1]))), deque([1]))
        self.assertNotEqual(not_plain(("deque([1])", ("deque", [1]))), [1])

    def test_anything_else_is_its_repr_and_equals_nothing(self) -> None:
        for sent in ("<object>", ("<x>", ("Unknown", {})), ("<x>", ("deque", {1: 2})), ("<x>", ("Counter", [1]))):
            got = not_plain(sent)
            self.assertIs(type(got), Opaque)
            self.assertFalse(got == got)


class ResultLimits(unittest.TestCase):
    class Wrapped:
        """An oracle's expected object: the judge bounds answers by the value it stands for."""

        def __init__(self, value: object) -> None:
            self.value = value

        @property
        def eddy_value(self) -> object:
            return self.value

    def test_defaults_unless_the_expected_outputs_are_larger(self) -> None:
        self.assertEqual(result_limits([1, "a"], b"", False), (MAX_RESULT_BYTES, MAX_INT_DIGITS))
        big = "x" * (MAX_RESULT_BYTES // 2 + 1000)
        size, _ = result_limits([self.Wrapped(big), self.Wrapped(big)], b"", False)
        self.assertGreater(size, 2 * len(big) * 2 - 1)
        _, digits = result_limits([self.Wrapped(10 ** 1_000_000)], b"", False)
        self.assertEqual(digits, 2 * ((10 ** 1_000_000).bit_length() // 15 + 1))
