"""The worker's reader of candidate frames: plain values only, bounded, never marshal.loads."""

import marshal
import struct
import unittest

from eddy_judge.protocol import MAX_DEPTH, FrameBuffer, Malformed, Partial, read_plain


class ReadPlain(unittest.TestCase):
    def test_round_trips_every_plain_type(self) -> None:
        values = [None, True, False, 0, -1, 2**31, -(2**100), 10**5000, 1.5, float("inf"), 2 + 3j, "", "é∑", b"\x00\xff",
                  (), (1, "a"), [1, [2, [3]]], {"k": [1]}, {1, 2}, frozenset({(1, 2)}), [(1,) * 300]]
        for v in values:
            got = read_plain(marshal.dumps(v))
            self.assertEqual(got, v)
            self.assertIs(type(got), type(v))

    def test_shared_references_stay_shared_without_expansion(self) -> None:
        x = [1, 2]
        got = read_plain(marshal.dumps([x, x, x]))
        self.assertEqual(got, [[1, 2]] * 3)

    def test_refuses_code_cycles_depth_truncation_and_trailing_bytes(self) -> None:
        cyclic: list[object] = []
        cyclic.append(cyclic)
        deep = b"[\x01\x00\x00\x00" * (MAX_DEPTH + 10) + b"N"
        bad = [
            marshal.dumps(compile("1", "x", "eval")),
            marshal.dumps(cyclic),
            deep,
            marshal.dumps([1, 2, 3])[:-1],
            marshal.dumps(1) + b"N",
            b"l" + struct.pack("<i", 10**7) ,  # an integer claiming ten million digits
            b"[" + struct.pack("<i", 2**30),  # a list claiming a billion items
            b".",  # Ellipsis
            b"{" + marshal.dumps([1]) + b"N0",  # an unhashable key
        ]
        for data in bad:
            with self.assertRaises(Malformed, msg=repr(data[:20])):
                read_plain(data)

    def test_partial_reads_the_head_and_defers_the_rest(self) -> None:
        part = Partial(marshal.dumps(("r", 3, [1, 2], None)), 2)
        self.assertEqual(part.head, ["r", 3])
        self.assertEqual(part.finish(), [[1, 2], None])
        with self.assertRaises(Malformed):
            Partial(marshal.dumps([1, 2]), 2)


    def test_lists_of_shared_ints_and_references_read_as_marshal_wrote_them(self) -> None:
        # A call's result and the arguments sent back with it share their ints (small ints are
        # shared by every object, and a slice holds the argument's own): marshal writes them with
        # the reference flag, and again as references. The reader takes these in its own loop:
        # the same values, types and expanded size as value() gives, refusals included.
        import random

        rng = random.Random(36)

        def expanded(v: object) -> int:
            if type(v) in (list, tuple, set, frozenset):
                return 1 + sum(expanded(x) for x in v)  # type: ignore[union-attr]
            if type(v) is dict:
                return 1 + sum(expanded(k) + expanded(x) for k, x in v.items())  # type: ignore[union-attr]
            return 1

        for _ in range(300):
            pool = [rng.randint(-300, 300) for _ in range(rng.randint(0, 30))] + [10**12, -(2**31), 2**31 - 1]
            args = [rng.choice(pool) for _ in range(rng.randint(0, 40))]
            inner = args[1::2]
            value = rng.choice([args[::3], [inner, inner, args], (args, [args[0]] if args else []), {"k": inner, 5: args}])
            data = marshal.dumps(("r", 1, value, (args,)))
            p = Partial(data, 2)
            got = p.finish()
            want = list(marshal.loads(data)[2:])
            self.assertEqual(got, want)
            self.assertEqual([type(x) for x in got], [type(x) for x in want])
            self.assertEqual(p.expanded, expanded(marshal.loads(data)) - 1)  # the message's own tuple is not counted
        # A reference to nothing, to a slot still being read, and a truncated one are refused.
        for bad in (b"[\x02\x00\x00\x00\xe9\x07\x00\x00\x00r\x05\x00\x00\x00", b"\xdb\x01\x00\x00\x00r\x00\x00\x00\x00", b"[\x01\x00\x00\x00r\x00\x00"):
            with self.assertRaises(Malformed, msg=repr(bad)):
                read_plain(bad)
        self.assertEqual(read_plain(b"[\x02\x00\x00\x00\xe9\x07\x00\x00\x00r\x00\x00\x00\x00"), [7, 7])

    def test_a_result_message_is_read_as_far_as_its_index_as_the_constructor_reads_it(self) -> None:
        # Partial.result reads the layout marshal gives a call's result in a few byte comparisons;
        # whatever it accepts must leave exactly the reader the constructor leaves (the slots of
        # flagged items included: the value may refer back to the tag or the index), and
        # anything else is left to the constructor.
        def state(p: Partial) -> tuple[object, ...]:
            return (p.head, p.size, p._r.refs, p._r.sizes, p._r.pos, p._r.expanded)

        big = 10**6
        messages = [("r", 0, None, None), ("r", 7, [1, 2], (3,)), ("o", big, "text", None), ("e", 3, "runtime", "ValueError: x"),
                    ("r", -1, "r", None), ("r", 300, [300, "r", "r"], [300]), ("x", 1, 2, 3), ("r", 1, 2), ("r", "1", 2, 3),
                    ("r", 2**40, 1, None), ("rr", 1, 2, 3), ("é", 1, 2, 3), [1, 2, 3, 4]]
        variants = []
        for m in messages:
            data = marshal.dumps(m)
            variants.append(data)
            # The same with each of the first items' reference flags set and cleared.
            for at in (0, 2, 5):
                if len(data) > at:
                    for flip in (data[at] | 0x80, data[at] & 0x7F):
                        variants.append(data[:at] + bytes([flip]) + data[at + 1 :])
        accepted = 0
        for data in variants:
            fast = Partial.result(data)
            if fast is None:
                continue
            accepted += 1
            slow = Partial(data, 2)
            self.assertEqual(state(fast), state(slow), data)
            try:
                want: object = slow.finish()
            except Malformed as e:
                want = type(e)
            try:
                got: object = fast.finish()
            except Malformed as e:
                got = type(e)
            self.assertEqual(got, want, data)
        self.assertGreater(accepted, 10)
        for m in [("x", 1, 2, 3), ("r", 1, 2), ("r", "1", 2, 3), ("r", 2**40, 1, None), ("rr", 1, 2, 3), [1, 2, 3, 4]]:
            self.assertIsNone(Partial.result(marshal.dumps(m)), m)


class Frames(unittest.TestCase):
    def test_splits_a_stream_and_caps_its_size(self) -> None:
        fb = FrameBuffer(100)
        data = struct.pack(">I", 3) + b"abc" + struct.pack(">I", 2) + b"de"
        self.assertEqual(fb.feed(data[:5]), [])
        self.assertEqual(fb.feed(data[5:]), [b"abc", b"de"])
        with self.assertRaises(OverflowError):
            fb.feed(b"x" * 200)


if __name__ == "__main__":
    unittest.main()
