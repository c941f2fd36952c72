"""A call's frame payload (sandbox.py `dump`, the harness's own scope): instances of subclasses of
built-in types go as their built-in value, read without any of the answer's own code.

EvalPlus compares an answer with ==, which sees a numpy float64, an IntEnum member, a str
subclass, a namedtuple or an OrderedDict as the built-in value they hold; marshal takes exact
types only (and sends any buffer, a numpy scalar among them, as raw bytes). The hostile classes
here record every method of theirs that runs: none may run while a frame is made.
"""

import collections
import enum
import marshal
import unittest
from typing import Any

from eddy_sandbox import sandbox
from eddy_judge.protocol import read_plain

try:
    import numpy  # type: ignore[import-not-found]
except ImportError:  # the judge's Python need not have it
    numpy = None

dump = sandbox._DUMP_SCOPE["dump"]
MAX_PAYLOAD = sandbox._DUMP_SCOPE["MAX_PAYLOAD"]
NAMED = tuple(sandbox._CONTAINERS.items())
NOT_PLAIN = sandbox.NOT_PLAIN

RAN: list[str] = []


def spy(name: str) -> Any:
    def method(*args: Any, **kw: Any) -> Any:
        RAN.append(name)
        raise AssertionError("the answer's %s ran" % name)

    return method


class Meta(type):
    """A metaclass whose own methods would run if the harness hashed, compared or looked up
    attributes of the answer's classes, or asked them about instances and subclasses."""

    __hash__ = spy("metaclass __hash__")  # type: ignore[assignment]
    __eq__ = spy("metaclass __eq__")  # type: ignore[assignment]
    __instancecheck__ = spy("metaclass __instancecheck__")
    __subclasscheck__ = spy("metaclass __subclasscheck__")

    def __getattribute__(cls, name: str) -> Any:
        if name in ("__name__", "__qualname__", "__module__", "__dict__", "__mro__", "__new__", "__init__", "__init_subclass__"):
            return type.__getattribute__(cls, name)
        RAN.append("metaclass __getattribute__ " + name)
        return type.__getattribute__(cls, name)


OVERRIDDEN = (
    "__repr__ __str__ __iter__ __reversed__ __len__ __contains__ __getitem__ __eq__ __ne__ __lt__ __hash__ __bool__ "
    "__float__ __int__ __index__ __complex__ __bytes__ __format__ __round__ __trunc__ __pos__ __neg__ __abs__ __add__ "
    "__reduce__ __reduce_ex__ __getnewargs__ __copy__ __deepcopy__ keys values items get copy count index __missing__ "
    "hex real imag conjugate __getattr__ __buffer__"
).split()


_HOSTILE: dict[tuple[type, bool], type] = {}


def hostile(base: type, key: bool = False) -> type:
    """A subclass of base whose every method of note records that it ran (and raises); as a
    dict key or set element (`key`), with hashing and equality left to base."""
    if (base, key) not in _HOSTILE:
        ns: dict[str, Any] = {name: spy(name) for name in OVERRIDDEN if not (key and name in ("__hash__", "__eq__", "__ne__"))}
        ns["__class__"] = property(spy("__class__"))
        ns["__getattribute__"] = spy("__getattribute__")
        _HOSTILE[(base, key)] = Meta("Hostile" + base.__name__.title(), (base,), ns)
    return _HOSTILE[(base, key)]


def make(base: type, value: Any, key: bool = False) -> Any:
    """An instance of hostile(base) holding value, made with base's own C methods, unbound."""
    cls = hostile(base, key)
    if base is collections.OrderedDict:
        obj = base.__new__(cls)
        for k, v in value:
            base.__setitem__(obj, k, v)
        return obj
    if base in (dict, collections.Counter, collections.defaultdict):
        obj = base.__new__(cls)
        dict.update(obj, value)
        return obj
    if base in (list, set, bytearray, collections.deque):
        obj = base.__new__(cls)
        base.__init__(obj, value)
        return obj
    return base.__new__(cls, value)


def payload(value: Any, args: Any = (), send: bool = True, limit: int = MAX_PAYLOAD, named: Any = None) -> Any:
    """What dump made of a call that returned value: the frame it would send, read back as the
    worker reads it (protocol.read_plain), or None (left to the main thread)."""
    made = dump(7, (("r", value),), args, send, limit, named)
    return None if made is None else read_plain(made)


class Color(enum.IntEnum):
    RED = 1
    BLUE = 2


class Perm(enum.IntFlag):
    R = 4
    W = 2


Point = collections.namedtuple("Point", "x y")


class SubclassValues(unittest.TestCase):
    def setUp(self) -> None:
        RAN.clear()

    def tearDown(self) -> None:
        self.assertEqual(RAN, [], "answer code ran while the frame was made")

    def test_plain_data_is_sent_as_before(self) -> None:
        # Exact types: the same bytes as marshal's own of the frame.
        # Exact types: the value itself, what marshal alone made of it before.
        args = ([1],)
        for v in (1, -(10**40), 2.5, "ab", b"x", None, True, 1j, bytearray(b"ab"), [1, "a", None], (1, (2, [3])), {"a": [1, 2]}, {1, 2}, frozenset({"x"}), [], {}, [[1, 2], (3, 4)] * 3, [{"a": 1}, {"b": (2, 3)}]):
            got = payload(v, args)
            self.assertEqual(got, marshal.loads(marshal.dumps(("r", 7, v, args))))
            self.assertEqual(repr(got), repr(marshal.loads(marshal.dumps(("r", 7, v, args)))))
        self.assertEqual(read_plain(dump(3, (("e", "runtime", "ValueError: x"),), (), True)), ("e", 3, "runtime", "ValueError: x"))

    def test_scalars_of_subclasses_go_as_their_built_in_value(self) -> None:
        cases = [
            (make(float, 0.1), 0.1),
            (make(int, 7), 7),
            (make(int, 10**30), 10**30),
            (Color.BLUE, 2),
            (Perm.R | Perm.W, 6),
            (make(str, "héllo"), "héllo"),
            (make(bytes, b"ab"), b"ab"),
            (make(complex, 1 + 2j), 1 + 2j),
        ]
        for value, want in cases:
            for limit, named in ((MAX_PAYLOAD, None), (0, NAMED)):
                got = payload(value, limit=limit, named=named)
                self.assertEqual(got, ("r", 7, want, ()))
                self.assertIs(type(got[2]), type(want))
        nan = payload(make(float, float("nan")))[2]
        self.assertIs(type(nan), float)
        self.assertNotEqual(nan, nan)

    def test_containers_of_subclasses_and_in_them(self) -> None:
        cases = [
            (make(list, [make(float, 1.5), 2, "x"]), [1.5, 2, "x"]),
            (make(tuple, (Color.RED, make(str, "a"))), (1, "a")),
            (Point(1, make(float, 2.0)), (1, 2.0)),
            ([Point(1, 2), Point(3, 4)], [(1, 2), (3, 4)]),
            (make(dict, {"a": make(int, 1), make(str, "b", key=True): [Color.BLUE]}), {"a": 1, "b": [2]}),
            (make(set, {1, 2}), {1, 2}),
            (make(frozenset, {Color.RED, 5}), frozenset({1, 5})),
            ({"k": make(frozenset, {"x"})}, {"k": frozenset({"x"})}),
            ([collections.Counter("aab"), collections.OrderedDict([("z", 1)]), collections.defaultdict(int, {"q": 2})], [{"a": 2, "b": 1}, {"z": 1}, {"q": 2}]),
            ((make(list, []), make(dict, {}), make(tuple, ())), ([], {}, ())),
        ]
        for value, want in cases:
            got = payload(value, limit=0, named=NAMED)
            self.assertEqual(got, ("r", 7, want, ()), value)
            self.assertEqual(repr(got[2]), repr(want))  # the same types all the way down

    def test_what_the_subclass_says_of_itself_is_not_read(self) -> None:
        # A list subclass whose __iter__ shows something else is its built-in content.
        class Shows(list):
            def __iter__(self):  # type: ignore[override]
                RAN.append("__iter__")
                return iter([1, 2, 3])

        class Equal(float):
            def __eq__(self, other: object) -> bool:
                RAN.append("__eq__")
                return True

            __hash__ = float.__hash__

        self.assertEqual(payload(Shows([9]))[2], [9])
        self.assertEqual(payload(Equal(0.5))[2], 0.5)

    def test_the_standard_librarys_containers_go_whole_from_the_main_thread(self) -> None:
        od = collections.OrderedDict([("b", 1), ("a", 2), ("c", 3)])
        od.move_to_end("b")
        cases = [
            (collections.Counter("abca"), "Counter", {"a": 2, "b": 1, "c": 1}),
            (make(collections.Counter, {"x": make(int, 3)}), "Counter", {"x": 3}),
            (collections.defaultdict(list, {1: [2]}), "defaultdict", {1: [2]}),
            (make(collections.OrderedDict, [("k", Point(1, 2)), ("j", 0)]), "OrderedDict", {"k": (1, 2), "j": 0}),
            (od, "OrderedDict", {"a": 2, "c": 3, "b": 1}),
            (collections.deque([1, make(float, 2.0)]), "deque", [1, 2.0]),
            (make(collections.deque, [Color.RED]), "deque", [1]),
        ]
        for value, name, content in cases:
            # In a batch (no `named`): left to the main thread, which sends it whole.
            self.assertIsNone(payload(value), name)
            got = payload(value, limit=0, named=NAMED)
            self.assertEqual(got[0], "o")
            self.assertEqual(got[2][1], (name, content))
            self.assertEqual(list(got[2][1][1]), list(content))  # in the container's own order
        # An OrderedDict's order is read by hashing its keys: keys that had to be converted first
        # (an IntEnum's hash is Python code) are not read that way, and it goes by its repr.
        self.assertIsNone(payload(collections.OrderedDict([(Color.RED, 1)]), limit=0, named=NAMED))
        # A dict subclass of the answer's goes as a dict from the main thread.
        self.assertIsNone(payload(make(dict, {"a": 1})))
        self.assertEqual(payload(make(dict, {"a": 1}), limit=0, named=NAMED), ("r", 7, {"a": 1}, ()))

    def test_what_is_not_plain_data_is_left_to_the_main_thread(self) -> None:
        class Mine:
            pass

        looped: list[Any] = []
        looped.append(looped)
        in_sub = make(list, [])
        list.append(in_sub, in_sub)

        class Alike(int):
            def __eq__(self, other: object) -> bool:
                return False

            def __hash__(self) -> int:
                return 12345

        cases = {
            "an object of the answer's": Mine(),
            "one inside a list": [1, Mine()],
            "one inside a set in a dict": {"k": {Mine()}},
            "a memoryview (marshal sent its bytes)": memoryview(b"ab"),
            "one inside a list": [memoryview(b"ab")],
            "a range": range(3),
            "Ellipsis (the worker's reader takes none)": Ellipsis,
            "a code object": (lambda: 0).__code__,
            "a list that holds itself": looped,
            "a list subclass that holds itself": in_sub,
            "dict keys that are distinct only by their own __eq__": {Alike(1): 1, 1: 2},
            "set items alike": {Alike(1), 1},
        }
        for what, value in cases.items():
            for limit, named in ((MAX_PAYLOAD, None), (0, NAMED)):
                self.assertIsNone(payload(value, limit=limit, named=named), what)

    def test_shared_objects_stay_shared_and_unchanged_ones_are_themselves(self) -> None:
        arg = [1, 2]
        # An exact list of the arguments inside a converted value is the same object in the
        # frame: the worker's check for a returned argument object sees it.
        got = payload(make(list, [arg, make(float, 1.0)]), args=(arg,))
        self.assertIs(got[2][0], got[3][0])
        inner = make(list, [Color.RED])
        got = payload([inner, inner, (inner,)])
        self.assertIs(got[2][0], got[2][1])
        self.assertIs(got[2][0], got[2][2][0])

    def test_arguments_no_longer_plain_are_not_sent(self) -> None:
        self.assertEqual(payload(make(float, 1.0), args=([object()],)), ("r", 7, 1.0, NOT_PLAIN))
        self.assertEqual(payload(make(float, 1.0), args=([1],), send=False), ("r", 7, 1.0, None))

    def test_a_batch_reads_no_more_than_its_frame_holds(self) -> None:
        big = make(list, [make(int, i) for i in range(5000)])
        self.assertIsNone(payload(big))
        self.assertEqual(payload(big, limit=0, named=NAMED)[2], list(range(5000)))
        wide = [[Color.RED] * 100] * 100  # one inner list, shared: read once
        self.assertEqual(payload(wide, limit=0)[2], [[1] * 100] * 100)

    def test_deep_values_are_walked_without_recursion(self) -> None:
        deep: Any = Color.RED
        for _ in range(100_000):
            deep = make(list, [deep])
        # Deeper than marshal writes: not plain data, and no RecursionError on the way.
        self.assertIsNone(payload(deep, limit=0))
        shallow: Any = Color.RED
        for _ in range(500):
            shallow = (shallow,)
        got = payload(shallow, limit=0)[2]
        for _ in range(500):
            got = got[0]
        self.assertIs(type(got), int)

    @unittest.skipIf(numpy is None, "numpy is not installed for this Python")
    def test_numpy_scalars(self) -> None:
        assert numpy is not None
        # float64, complex128 and str_ subclass float, complex and str; marshal took each of them
        # (and int64, which subclasses nothing) as a buffer and sent its raw bytes.
        self.assertEqual(payload(numpy.float64(0.5)), ("r", 7, 0.5, ()))
        self.assertEqual(payload([numpy.float64(1.25), numpy.float64(-0.0)])[2], [1.25, -0.0])
        self.assertEqual(payload(numpy.complex128(1 + 2j))[2], 1 + 2j)
        self.assertEqual(payload(numpy.str_("ab"))[2], "ab")
        self.assertEqual(payload({"m": numpy.float64(2.0)}, limit=0, named=NAMED)[2], {"m": 2.0})
        # int64, bool_ and float32 subclass nothing, but their types are numpy's own C types: read
        # by their own `item`, as exact int, bool and float (EvalPlus's == sees np.int64(3) == 3).
        self.assertEqual(payload(numpy.int64(3))[2], 3)
        self.assertIs(type(payload(numpy.int64(3))[2]), int)
        self.assertEqual(payload([numpy.bool_(True), numpy.float32(0.5)])[2], [True, 0.5])
        # An array of several elements has no one value; a Python class that calls itself numpy's
        # is no static type: neither is plain data.
        fake = type("int64", (), {"__module__": "numpy", "item": lambda self: 3})
        for value in (numpy.array([1.0, 2.0]), fake()):
            self.assertIsNone(payload(value, limit=0, named=NAMED), repr(value))


if __name__ == "__main__":
    unittest.main()
