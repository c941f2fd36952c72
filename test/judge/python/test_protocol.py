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
