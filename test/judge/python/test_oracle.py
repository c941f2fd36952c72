"""The oracle contract (oracle.py) and the strength tool's in-process check, on small oracles written here."""

import os
import tempfile
import unittest

from eddy_judge import oracle
from eddy_judge.oracle import OracleError
from eddy_judge.tools import strength

ORACLE = '''
def solution(xs, *, k):
    return [x * k for x in xs]

def tests(*, k):
    yield ([1, 2],), [k, 2 * k]

def inputs(rng, *, k):
    return ([rng.randint(0, 9) for _ in range(3)],)

def mutant_plus(xs, *, k):
    return [x + k for x in xs]

def mutant_raises(xs, *, k):
    return xs[10]

def mutant_random_only(xs, *, k):
    return [k, 2 * k] if xs == [1, 2] else xs
'''


class OracleTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self) -> None:
        self.dir.cleanup()

    def write(self, text: str) -> str:
        path = os.path.join(self.dir.name, "o.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_draws_the_same_cases_for_the_same_seed(self) -> None:
        mod = oracle.load(self.write(ORACLE), "t_oracle")
        self.assertEqual(list(oracle.fixed_tests(mod, {"k": 3})), [((([1, 2]),), [3, 6])])
        a = list(oracle.random_inputs(mod, {"k": 3}, "12345", 5))
        self.assertEqual(a, list(oracle.random_inputs(mod, {"k": 3}, 12345, 5)))
        self.assertEqual(len(a), 5)
        self.assertNotEqual(a, list(oracle.random_inputs(mod, {"k": 3}, 54321, 5)))
        self.assertEqual(oracle.mutant_names(mod), ["mutant_plus", "mutant_raises", "mutant_random_only"])

    def test_refuses_an_oracle_without_a_required_function_or_that_raises(self) -> None:
        with self.assertRaisesRegex(OracleError, "defines no inputs"):
            oracle.load(self.write(ORACLE.replace("def inputs(", "def draw(")), "t_oracle2")
        with self.assertRaisesRegex(OracleError, "failed to load: ZeroDivisionError"):
            oracle.load(self.write("1 / 0\n"), "t_oracle3")
        with self.assertRaisesRegex(OracleError, "not found"):
            oracle.load(os.path.join(self.dir.name, "missing.py"), "t_oracle4")

    def test_strength_names_each_kill_by_category(self) -> None:
        req = {"oracle": self.write(ORACLE), "instances": [{"bindings": {"k": 3}, "seed": "7"}], "randomInputs": 20, "check": True}
        out = strength.measure(req)
        kills = {m["name"]: m.get("category") for m in out["check"]["mutants"]}
        self.assertEqual(kills, {"mutant_plus": "assertion_error", "mutant_raises": "runtime_error", "mutant_random_only": "fuzzing_failure"})
        self.assertEqual(out["check"]["solutionFailures"], [])
        self.assertEqual(out["counts"]["random"], 20)


if __name__ == "__main__":
    unittest.main()


class PlainCopyTest(unittest.TestCase):
    """prepare._copy: the model solution gets copies of each input (it may change them) made by a
    marshal round trip, with copy.deepcopy for what marshal does not take."""

    def test_a_deep_copy_that_keeps_sharing(self) -> None:
        from eddy_judge.prepare import _copy

        inner = [1, 2]
        x = ([inner, inner, {"k": {3, 4}}], {"a": (inner, b"\x00", 2.5, True, None)})
        y = _copy(x)
        self.assertEqual(y, x)
        self.assertIsNot(y[0][0], inner)
        self.assertIs(y[0][0], y[0][1])  # one object twice in, one object twice out
        self.assertIs(y[1]["a"][0], y[0][0])
        self.assertIs(type(y[1]["a"][3]), bool)
        y[0][0].append(3)
        self.assertEqual(inner, [1, 2])

    def test_what_marshal_does_not_take_is_deep_copied(self) -> None:
        from eddy_judge.prepare import _copy

        class Box:
            def __init__(self, v: list[int]) -> None:
                self.v = v

        b = Box([1])
        c = _copy([b])
        self.assertIsNot(c[0], b)
        self.assertIsNot(c[0].v, b.v)
        self.assertEqual(c[0].v, [1])
