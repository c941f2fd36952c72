"""Comparators: type-strict by default (TEAM contract), tolerance only where named."""

import math
import unittest

from eddy_judge.compare import Opaque, canonical, named_comparator, strict_equal


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
