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
