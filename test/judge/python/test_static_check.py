"""Static checks: SPEC order, and a single pass over the symbol tables."""

import unittest

from eddy_judge.static_check import precheck, unbound_names


class Precheck(unittest.TestCase):
    def test_categories_in_order(self) -> None:
        cases = [
            ("x = 1\n", "no_function"),
            ("def other(a):\n    return a\n", "wrong_function_name"),
            ("def f(a, b):\n    return a\n", "wrong_arg_count"),
            ("def f(a):\n    return (\n", "syntax_error"),
            ("def f(a):\n    return math.floor(a)\n", "static_error"),
            ("def f(a):\n    return " + "(" * 5000 + "1" + ")" * 5000 + "\n", "syntax_error"),
        ]
        for code, want in cases:
            verdict, compiled = precheck(code, "f", 1)
            self.assertIsNotNone(verdict, code[:40])
            assert verdict is not None
            self.assertEqual(verdict[0], want, code[:40])
            self.assertIsNone(compiled)
        verdict, compiled = precheck("import math\ndef f(a, *rest):\n    return math.floor(a)\n", "f", 1)
        self.assertIsNone(verdict)
        self.assertIsNotNone(compiled)

    def test_every_unbound_name_once_in_first_seen_order(self) -> None:
        # 40,000 distinct unbound names: the old list look-up made this quadratic.
        names = ["n%d" % i for i in range(40_000)]
        code = "def f(a):\n    return 0\nx = (" + ", ".join(names + names[:10]) + ")\n"
        self.assertEqual(unbound_names(code), names)


if __name__ == "__main__":
    unittest.main()
