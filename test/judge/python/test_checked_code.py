"""The static check's remembered word (checked_code.py), judged in real sandboxes: a code text
refused once is refused again, in the same words, without a sandbox; one passed once is still
run and judged on what it does; a refusal about the judge's limits is never remembered."""

import os
import unittest

from eddy_judge import candidate, checked_code, verdicts

ORACLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "oracles", "evens.py")


def request(code: str, lo: int = 0) -> dict[str, object]:
    return {
        "op": "judge",
        "oracle": ORACLE,
        "oracleHash": "test-checked-code",
        "function": "evens",
        "arity": 1,
        "bindings": {"lo": lo, "hi": 10},
        "comparator": "ordered",
        "randomInputs": 5,
        "seed": "7",
        "budget": {"timeMs": 1500, "memoryMb": 128},
        "code": code,
    }


class CheckedCode(unittest.TestCase):
    runs: list[bool]

    def setUp(self) -> None:
        checked_code.forget()
        self.runs = []
        real = verdicts.run_candidate

        def counted(*args: object, **kw: object) -> candidate.Run:
            self.runs.append(bool(kw.get("checked")))
            return real(*args, **kw)  # type: ignore[arg-type]

        verdicts.run_candidate = counted  # type: ignore[assignment]
        self.addCleanup(setattr, verdicts, "run_candidate", real)

    @classmethod
    def tearDownClass(cls) -> None:
        candidate.close_zygote()

    def judged(self, code: str, lo: int = 0) -> tuple[str, str]:
        out = verdicts.judge(request(code, lo))
        return out.category, out.detail

    def test_a_refusal_is_said_again_in_the_same_words_without_a_sandbox(self) -> None:
        for code, category in (
            ("def evens(values):\n    return list(filter(is_even, values))\n", "static_error"),
            ("def evens(values, extra):\n    return []\n", "wrong_arg_count"),
            ("def odds(values):\n    return []\n", "wrong_function_name"),
            ("def evens(values):\n    return [v for v in values if v % 2 == 0\n", "syntax_error"),
            ("x = 1\n", "no_function"),
        ):
            first = self.judged(code)
            self.assertEqual(first[0], category, first)
            self.assertEqual(len(self.runs), 1, code)
            # Another instance (a verdict-cache miss in the pool): the same words, no sandbox.
            self.assertEqual(self.judged(code, lo=1), first)
            self.assertEqual(len(self.runs), 1, code)
            self.runs.clear()

    def test_a_passed_code_is_still_run_and_judged_on_what_it_does(self) -> None:
        right = "def evens(values):\n    return [v for v in values if v % 2 == 0]\n"
        wrong = "def evens(values):\n    return [v for v in values if v % 2]\n"
        crash = "def evens(values):\n    raise RuntimeError('boom')\n"
        for code, category in ((right, "passed"), (wrong, "assertion_error"), (crash, "runtime_error")):
            first = self.judged(code)
            self.assertEqual(first[0], category, first)
            self.assertEqual(self.judged(code, lo=1), first)
        # Each ran twice: the first time checked in its sandbox, the second time only compiled there.
        self.assertEqual(self.runs, [False, True] * 3)

    def test_a_refusal_about_the_judges_limits_is_not_remembered(self) -> None:
        code = "def evens(values):\n    return []\n"
        checked_code.remember(code, "evens", 1, ("static_error", "the code is too large or too deeply nested for the judge to analyse"))
        self.assertEqual(checked_code.lookup(code, "evens", 1), (False, None))
        checked_code.remember(code, "evens", 1, ("static_error", "undefined name: nope"))
        self.assertEqual(checked_code.lookup(code, "evens", 1), (True, ("static_error", "undefined name: nope")))
        # The function's name and arity are part of what was checked.
        self.assertEqual(checked_code.lookup(code, "evens", 2), (False, None))
        self.assertEqual(checked_code.lookup(code, "odds", 1), (False, None))


if __name__ == "__main__":
    unittest.main()
