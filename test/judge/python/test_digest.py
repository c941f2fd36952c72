"""The digest of an output too large to keep: equal exactly where Python's == says equal."""

import itertools
import random
import unittest
from collections import Counter, OrderedDict, defaultdict

from eddy_sandbox.digest import digest


def slow(x):
    """The same value, rebuilt so that no container of it is a tree of leaves (a bool at the
    bottom of each forces the item-by-item walk): the walk's two paths must agree."""
    if type(x) is list:
        return [slow(v) for v in x] + [True]
    if type(x) is tuple:
        return tuple(slow(v) for v in x) + (True,)
    return x


def fast(x):
    if type(x) is list:
        return [fast(v) for v in x] + [1]
    if type(x) is tuple:
        return tuple(fast(v) for v in x) + (1,)
    return x


class Digest(unittest.TestCase):
    def test_equal_values_share_a_digest_unequal_ones_do_not(self) -> None:
        values = [None, 0, 1, -1, 2**100, -(2**100), "", "a", "1", b"", b"a", [], (), [1], (1,), [[1]], [(1,)], {}, {1: 2}, {1: (2,)}, set(), {1}, {(1,)}, {"a": [1, 2]}, [1, "a", b"a", None]]
        for a in values:
            for b in values:
                with self.subTest(a=a, b=b):
                    self.assertEqual(digest(a) == digest(b), a == b)
                    self.assertIsNotNone(digest(a))

    def test_list_and_tuple_differ_as_under_equality(self) -> None:
        self.assertNotEqual(digest([1, 2]), digest((1, 2)))
        self.assertNotEqual(digest([(1, 2)]), digest([[1, 2]]))
        self.assertNotEqual(digest("ab"), digest(b"ab"))

    def test_bool_is_the_integer_it_equals(self) -> None:
        # 1 == True, and [1] == [True], {1: 'a'} == {True: 'a'}: one digest.
        self.assertEqual(digest(True), digest(1))
        self.assertEqual(digest([True, False]), digest([1, 0]))
        self.assertEqual(digest({True: "a"}), digest({1: "a"}))
        self.assertNotEqual(digest(True), digest(2))

    def test_sets_and_dicts_are_order_free(self) -> None:
        words = ["w%d" % i for i in range(500)]
        shuffled = list(words)
        random.Random(7).shuffle(shuffled)
        self.assertEqual(digest(set(words)), digest(set(shuffled)))
        self.assertEqual(digest(frozenset(words)), digest(set(shuffled)))
        self.assertEqual(digest(dict(zip(words, range(500)))), digest({k: words.index(k) for k in shuffled}))
        self.assertNotEqual(digest({"a": 1, "b": 2}), digest({"a": 2, "b": 1}))
        self.assertNotEqual(digest({1, 2}), digest([1, 2]))
        self.assertNotEqual(digest({1: 2}), digest({(1, 2)}))

    def test_the_chunked_path_and_the_item_by_item_walk_agree(self) -> None:
        big = list(itertools.combinations_with_replacement(["r", "g", "b", "y"], 5)) * 300
        self.assertEqual(digest(slow(big)), digest(fast(big)))
        nested = [[(1, "a"), (2, b"b")], [(None, -5)], []]
        self.assertEqual(digest(slow(nested)), digest(fast(nested)))
        self.assertNotEqual(digest(big), digest(big[:-1] + [("r", "g", "b", "y", "x")]))

    def test_floats_have_no_digest_on_the_expected_side_and_equal_their_integer_on_the_answers(self) -> None:
        self.assertIsNone(digest([1, 2.0]))
        self.assertIsNone(digest({"a": 1j}))
        # == semantics on the answer's side: 2.0 == 2, (2+0j) == 2; 2.5 and nan equal no float-free value.
        self.assertEqual(digest([(1, 2.0)], False), digest([(1, 2)]))
        self.assertEqual(digest({2 + 0j: 3.0}, False), digest({2: 3}))
        self.assertIsNone(digest([2.5], False))
        self.assertIsNone(digest([float("nan")], False))
        self.assertIsNone(digest([float("inf")], False))

    def test_anything_not_exactly_a_built_in_has_no_digest(self) -> None:
        class Same(tuple):
            def __eq__(self, other: object) -> bool:
                return True

            __hash__ = tuple.__hash__

        class Shown(list):
            def __iter__(self):  # type: ignore[override]
                return iter([1, 2])

        self.assertIsNone(digest([Same((1, 2))]))
        self.assertIsNone(digest(Shown()))
        self.assertIsNone(digest([object()]))
        # The standard library's dicts: the expected side holds built-ins only; an answer's Counter
        # equals the dict it holds, as dict == Counter says.
        self.assertIsNone(digest(Counter("aab")))
        for d in (Counter("aab"), OrderedDict([("b", 1), ("a", 2)]), defaultdict(int, {"a": 2, "b": 1})):
            self.assertEqual(digest(d, False), digest(dict(d)))

    def test_deep_nesting_is_walked_without_recursion(self) -> None:
        deep: list = []
        for _ in range(50_000):
            deep = [deep]
        self.assertIsNotNone(digest(deep))
        other: list = [1]
        for _ in range(50_000):
            other = [other]
        self.assertNotEqual(digest(deep), digest(other))


if __name__ == "__main__":
    unittest.main()


class ImportKeepsDigests(unittest.TestCase):
    """src/import/humaneval/expected.py: which expected outputs are kept as their digest."""

    def setUp(self) -> None:
        import importlib.util
        import os

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src", "import", "humaneval", "expected.py")
        spec = importlib.util.spec_from_file_location("eddy_expected_under_test", path)
        assert spec is not None and spec.loader is not None
        self.mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.mod)
        setattr(self.mod, "DIGEST_OVER_BYTES", 1000)  # the threshold, small for the test

    def test_only_large_float_free_outputs_compared_by_equality_become_digests(self) -> None:
        big = [(i, str(i)) for i in range(500)]
        with_float = [(i, float(i)) for i in range(500)]
        outs, digests, spent = self.mod.digest_large([big, [1, 2], with_float], True, digest)
        self.assertEqual(outs, [None, [1, 2], with_float])
        self.assertEqual(digests, [digest(big), None, None])
        self.assertEqual(len(spent), 1)
        # A problem compared otherwise than by == (a tolerance, a special oracle) keeps every output.
        outs, digests, _ = self.mod.digest_large([big], False, digest)
        self.assertEqual((outs, digests), ([big], [None]))
        self.assertTrue(self.mod.special_oracle("mbpp", "similar_elements"))
        self.assertFalse(self.mod.special_oracle("mbpp", "combinations_colors"))
