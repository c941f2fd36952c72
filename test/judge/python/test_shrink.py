"""Shrinking a failing random input by its draws (eddy_judge/shrink.py): the judge's inputs are
drawn again exactly, edited draws replay inside the template's domain, and greedy shrinking ends
at an input no edit of which is smaller and still fails, within its bound."""

import random
import unittest

from eddy_judge.shrink import proposals, recorded_draws, replayed, shrink, size_key


def gen(rng):
    n = rng.randint(0, 30)
    return ([rng.randint(-99, 99) for _ in range(n)], rng.choice("abc"))


class ShrinkTest(unittest.TestCase):
    def test_record_reproduces_the_judges_inputs(self):
        rng = random.Random(1234)
        want = [gen(rng) for _ in range(6)]
        for i in range(6):
            draws, made = recorded_draws(gen, 1234, i)
            self.assertEqual(made, want[i])
            self.assertEqual(replayed(gen, draws, 1000), want[i])

    def test_replay_past_the_draws_is_zeros_and_bounded(self):
        self.assertEqual(replayed(gen, [], 100), ([], "a"))

        def endless(rng):
            while rng.random() < 0.5:
                pass
            return ()
        with self.assertRaises(Exception):
            replayed(endless, [], 50)

    def test_every_method_replays(self):

        def many(rng):
            xs = list(range(10))
            rng.shuffle(xs)
            return (rng.sample(range(100), 3), xs, rng.uniform(1, 2), rng.choices("xyz", k=4), rng.randbytes(3), rng.gauss(0, 1))
        draws, made = recorded_draws(many, 99, 2)
        self.assertEqual(replayed(many, draws, 1000), made)

    def test_shrinks_to_a_smallest_differing_input(self):
        # The answer drops negative numbers: it differs wherever the list holds one.
        def differs(args):
            return any(v < 0 for v in args[0])
        seed = 5
        draws, made = recorded_draws(gen, seed, 0)
        for i in range(40):
            draws, made = recorded_draws(gen, seed, i)
            if differs(made) and len(made[0]) > 5:
                break

        def make(d):
            try:
                return replayed(gen, d, 10 * len(draws) + 64)
            except Exception:
                return None

        def first(batch):
            return next((j for j, x in enumerate(batch) if differs(x)), None)
        out = shrink(draws, made, make, first)
        self.assertTrue(differs(out.args))
        self.assertEqual(len(out.args[0]), 1)
        self.assertEqual(out.args[1], "a")
        self.assertLess(size_key(out.args), size_key(made))
        self.assertGreater(out.steps, 0)
        # It is a local minimum: no proposal of its draws is smaller and still differs.
        for d in proposals(out.draws):
            x = make(d)
            if x is not None and size_key(x) < size_key(out.args):
                self.assertFalse(differs(x))

    def test_an_input_that_cannot_shrink_stays(self):
        draws, made = recorded_draws(gen, 3, 0)
        out = shrink(draws, made, lambda d: replayed(gen, d, 1000), lambda batch: None)
        self.assertEqual(out.args, made)
        from eddy_judge.shrink import shrink_failure
        same = shrink_failure(gen, 3, 0, made, lambda a: a, lambda calls, expected: None, lambda a, b: a == b)
        assert same is not None
        self.assertEqual((same.args, same.steps), (made, 0))
        self.assertEqual(out.steps, 0)

    def test_shrink_failure_gives_both_sides_and_refuses_an_impure_generator(self):
        from eddy_judge.shrink import shrink_failure

        def solve(args):
            return sorted(args[0])

        def answer(args):
            return sorted(v for v in args[0] if v != 0) if 0 in args[0] else sorted(args[0])

        def run_batch(calls, expected):
            for i, (c, e) in enumerate(zip(calls, expected)):
                if answer(c) != e:
                    return i, repr(e), repr(answer(c))
            return None

        seed = 11
        i, made = 0, ([],)
        for i in range(60):
            _, made = recorded_draws(gen, seed, i)
            if 0 in made[0] and len(made[0]) > 3:
                break
        found = shrink_failure(gen, seed, i, made, solve, run_batch, lambda a, b: a == b)
        self.assertIsNotNone(found)
        assert found is not None
        self.assertIn(0, found.args[0])
        self.assertLess(size_key(found.args), size_key(made))
        self.assertEqual(found.expected, repr(solve(found.args)))
        self.assertEqual(found.actual, repr(answer(found.args)))
        # A generator that is not a function of its rng does not draw the failing input again: nothing is claimed.
        import itertools
        counter = itertools.count()

        def impure(rng):
            return ([next(counter)],)

        self.assertIsNone(shrink_failure(impure, seed, 0, ([12345],), solve, run_batch, lambda a, b: a == b))

    def test_bounded_by_max_tried(self):
        draws, made = recorded_draws(gen, 7, 1)
        calls = []

        def first(batch):
            calls.append(len(batch))
            return None
        out = shrink(draws, made, lambda d: replayed(gen, d, 1000), first, batch=4, max_tried=10)
        self.assertLessEqual(out.tried, 10)
        self.assertLessEqual(sum(calls), 10)


if __name__ == "__main__":
    unittest.main()
