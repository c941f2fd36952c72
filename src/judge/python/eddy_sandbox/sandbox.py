"""One candidate's run, forked from the clean zygote: a keeper process and the candidate under it.

With bubblewrap (the normal case) the zygote lives in a world bubblewrap built from nothing: an
empty root holding the Python interpreter and its libraries read-only, no network, no host
processes, no capabilities. For each candidate the keeper (a fork of the zygote) enters fresh
user, PID, mount and IPC namespaces, forks the candidate as PID 1 there, watches its CPU time and
reports its exit status and resource use on a pipe the candidate never holds.

The candidate mounts its own scratch tmpfs (size-limited /tmp and /dev/shm, an empty /proc), drops
every capability and installs the seccomp allow-list (a Python answer's sandbox does both before its
job arrives), reads its job (code, function, arguments, a per-job key), sets rlimits, runs the
static check, and then runs the code in one thread of its own, fed one job (the load, a batch of
calls, the last call) at a time. One authenticated frame goes back per call (a keyed BLAKE2b over a
sequence number and the payload): in a batch the answer's thread makes and writes it from C as the
call ends, with no answer code able to run (one thread, no tracer, no collection); otherwise the
main thread does. The key is in the main thread's locals and in the batch's C pipeline, which no
frame of the answer's references. An audit hook refuses and reports the ways into another thread's
frames and into raw memory (gc referrers, sys._current_frames, ctypes, tracing the main thread).
Nothing here has ever seen an oracle or an expected value.
"""

from __future__ import annotations

import _queue
import _thread
import builtins
import collections as _collections
import errno
import functools
import gc
import itertools
import marshal
import math
import operator
import os
import resource
import select
import signal
import socket
import struct
import sys
# Imported here, in the zygote's main thread: `threading` names its main thread (and sets that
# thread's sentinel lock) when first imported; imported first inside one of the answer's threads,
# it would reset that thread's sentinel, which the harness waits on (begin and finish in _run).
import threading  # noqa: F401
import time
from types import CodeType
from typing import Any, Callable

from . import isolation as iso
from . import landlock
from .control import recv_control
from .digest import DIGEST_SOURCE, NO_DIGEST
from .relay import RESULT_FD, Foreign, plain, relay
from .static_check import precheck

# The candidate's signal dispositions, set with C's signal.signal and plain numbers: the signal
# module's wrapper turns each old handler into an enum member, a good deal of Python run in every
# fork (whose pages are copied on the first write; issue #36).
_c_signal: Any = __import__("_signal")  # the C module under `signal` (no stub of its own)
_IGNORED_SIGNAL = int(signal.SIGXFSZ)
_DEFAULT_SIGNALS = tuple(int(s) for s in (signal.SIGINT, signal.SIGALRM, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE))
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_PROCS = 32
# Without a uid of its own (no sandbox, eddy not root), RLIMIT_NPROC counts every task of eddy's user,
# measured when the answer starts: what else that user starts meanwhile (other judge workers' answers,
# eddy's threads) comes out of the answer's allowance. This much headroom keeps a correct answer that
# forks from failing because the machine is busy (seen with two pools of one user judging at once).
SHARED_UID_HEADROOM = 64
MAX_OPEN_FILES = 64
MAX_JOB_BYTES = 64 * 1024 * 1024
SCRATCH_BYTES = 16 * 1024 * 1024
# The static check gets its own allowance on top of the candidate's CPU and memory budget.
PRECHECK_CPU_S = 5
PRECHECK_WALL_S = 30.0
PRECHECK_MEMORY_MB = 256
# A uid of its own per candidate when eddy runs as root without bubblewrap (fallback): no file,
# process or IPC object of anyone else's, and everything it leaves can be killed by uid.
UID_BASE = 2_000_000_000
RESOURCE_ERRNOS = {errno.EFBIG, errno.EAGAIN, errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.ENOMEM, errno.EDQUOT}
CANDIDATE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
# Each candidate's scratch folder in bubblewrap's world (in its own /tmp).
WORKDIR = "/tmp/work"
MAC_BYTES = 16
# The start mark a Python candidate writes to its keeper just before the answer's code runs: its
# CPU clock (ns), then when each step of its set-up ended (started, scratch space and descriptors,
# job read, limits and filters, static check, harness ready), each as (monotonic s, its CPU s),
# for the profile (profile.py). Another language's relay writes the clock alone (8 bytes).
# Harness code writes it, in one write (atomic on a pipe), before any answer code runs.
MARK_FORMAT = ">Q12d"
MARK_BYTES = struct.calcsize(MARK_FORMAT)
# The keeper's status carries its own stamps too (started, namespaces, candidate forked, candidate
# ended, cleaned up), then the candidate's six: STAMPS names them in order (each a pair).
STAMPS = ("k_start", "k_namespaces", "k_forked", "k_ended", "k_cleaned", "c_start", "c_scratch", "c_job", "c_limits", "c_checked", "c_ready")
# Exit status of a candidate stopped by the harness's guard when it could not report in a frame.
TAMPER_EXIT = 86
# Audit events that reach another thread's frames, the garbage collector's object lists or raw
# memory: refused wherever they happen. ctypes (any `ctypes.*` event) is raw memory.
ALWAYS_DENIED = {
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
    "sys._current_exceptions", "sys.addaudithook", "sys.monitoring.register_callback",
    "cpython.PyInterpreterState_Clear", "cpython._PySys_ClearAuditHooks",
}
# Reaching frames is harmless in the candidate's own thread (its frames hold only its own call)
# and refused in the harness's main thread, where candidate code runs only by accident (__del__).
MAIN_THREAD_DENIED = {"sys._getframe", "sys._getframemodulename", "object.__getattr__", "sys.settrace", "sys.setprofile"}
HARNESS_MODULES = ("eddy_sandbox", "ctypes", "_ctypes")
# The interpreter's site folders (environment.py site_dirs), set by the zygote: a module there (numpy)
# that imports ctypes gets an ImportError, as in a Python without ctypes, and carries on; any other
# import of ctypes is the hook's tampering, as before.
LIBRARY_DIRS: tuple[str, ...] = ()


# The keyed hash of every frame's MAC. hashlib's blake2b is this class; importing hashlib would
# load OpenSSL into the zygote, and every page and mapping of the zygote is copied into each
# candidate's page tables and torn down again when it ends (issue #36).
blake2b: Callable[..., Any] = __import__("_blake2").blake2b


class Config:
    """What the zygote set up once (sent back to the worker as the isolation report). A plain
    class: `dataclasses` imports `inspect` and with it about 2.5 MB that every candidate's
    clone would copy (issue #36)."""

    def __init__(self, protect: list[int] | None = None, zygote: int = 0) -> None:
        self.mode = "none"  # "bwrap" (bubblewrap + per-candidate namespaces) or "none"
        self.fresh_uid = False
        self.seccomp = False
        self.protect: list[int] = protect if protect is not None else []
        self.temp_base = "/tmp"
        self.zygote = zygote
        self.filter = b""
        self.filter_foreign = b""  # the allow-list plus what another language's runtime needs
        # Stacked on the candidate's own filter (isolation.py no_spawn_filter): for a Python answer
        # whose calls have limits of their own, and for another language's runtime (with fd 3 kept).
        self.filter_no_spawn = b""
        self.filter_runtime = b""
        # Set once in the zygote (zygote.py prepare_candidates), so that each candidate does not
        # run the Python that does it (every page that Python touches is copied into the candidate):
        self.env_ready = False  # os.environ is already the candidates' (bubblewrap's world only)
        self.harness_modules: tuple[str, ...] = ()  # the harness's entries in sys.modules, to remove
        self.modules_count = -1  # len(sys.modules) when harness_modules was listed
        self.scratch_mounts: tuple[tuple[bytes, bytes, bytes, int, bytes], ...] = ()  # (bubblewrap's world only)
        # Set by each keeper in its own copy: its bounding and ambient sets are cleared and its
        # securebits locked, which its candidates inherit (isolation.py drop_inherited).
        self.inherited_dropped = False


def scratch_mounts() -> tuple[tuple[bytes, bytes, bytes, int, bytes], ...]:
    """mount(2)'s arguments for a candidate's scratch space in bubblewrap's world: size-limited
    /tmp and /dev/shm (where the world has them) and an empty, read-only /proc. Listed once in
    the zygote (its world is read-only: what it has does not change)."""
    scratch = iso.MS_NOSUID | iso.MS_NODEV
    out = [(b"tmpfs", p.encode(), b"tmpfs", scratch, b"size=%d,mode=1777" % SCRATCH_BYTES) for p in ("/tmp", "/dev/shm") if os.path.isdir(p)]
    out.append((b"tmpfs", b"/proc", b"tmpfs", scratch | iso.MS_NOEXEC | iso.MS_RDONLY, b"size=4k,mode=555"))
    return tuple(out)


def candidate_env(workdir: str) -> dict[str, str]:
    """The whole environment a candidate starts with."""
    return {**CANDIDATE_ENV, "HOME": workdir, "TMPDIR": workdir}


def harness_modules() -> tuple[str, ...]:
    """The harness's modules in sys.modules (its own package, and ctypes, loaded for prctl)."""
    return tuple(name for name in sys.modules if name.split(".")[0] in HARNESS_MODULES)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _send(fd: int, obj: Any) -> None:
    """An unauthenticated frame: the keeper's status pipe (which no candidate holds)."""
    data = marshal.dumps(obj)
    _write_all(fd, struct.pack(">I", len(data)) + data)


def _send_setup(fd: int, text: str) -> None:
    """A harness failure before the job's key is known: a frame with an all-zero MAC, accepted
    by the worker only as the very first frame (before any candidate code can have run)."""
    data = b"\0" * MAC_BYTES + marshal.dumps(("setup", text))
    _write_all(fd, struct.pack(">I", len(data)) + data)


def mac(key: bytes, seq: int, payload: bytes) -> bytes:
    return blake2b(struct.pack(">Q", seq) + payload, key=key, digest_size=MAC_BYTES).digest()


def _read_frames(fd: int, count: int) -> list[bytes]:
    buf = b""
    frames: list[bytes] = []
    while len(frames) < count:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise EOFError("job pipe closed early")
        buf += chunk
        if len(buf) > MAX_JOB_BYTES:
            raise ValueError("job too large")
        while len(buf) >= 4 and len(frames) < count:
            n = struct.unpack(">I", buf[:4])[0]
            if len(buf) < 4 + n:
                break
            frames.append(buf[4 : 4 + n])
            buf = buf[4 + n :]
    return frames


def _vm_bytes() -> int:
    # os.open and os.read rather than open(): every page of the zygote's heap that the set-up's
    # Python touches is copied into this process on the first write (a fault each), and a text
    # file object runs a good deal of it (issue #36).
    try:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
        try:
            return int(os.read(fd, 256).split()[0]) * os.sysconf("SC_PAGE_SIZE")
        finally:
            os.close(fd)
    except (OSError, ValueError, IndexError):
        return 64 * 1024 * 1024


def _user_tasks(uid: int) -> int:
    """Threads this uid runs now: RLIMIT_NPROC counts every task of the user (a Node process
    alone has a dozen), not just the candidate's processes."""
    n = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    n += len(os.listdir("/proc/%s/task" % name))
            except OSError:
                pass
    return n


# ---------------------------------------------------------------- the candidate's own thread

# Compiled once, when the zygote loads this module, into a namespace holding only builtins and
# what the answer's thread needs. The load and each call run in one thread of the answer's own,
# started from C and fed one job at a time by a pipeline of C iterators (itertools/operator, _run's
# `begin`): the one harness frame above the answer's is `call` or `load`, which holds only what the
# answer was given, and between jobs the thread waits in C with no Python frame at all. The harness
# reads and records only while that thread waits there, and waits until the thread has *ended* (its
# sentinel lock, released once the thread's state is gone) before it sends the last call's frame.
_LOOP_SOURCE = '''
def kind(e):
    # SystemError ("error return without exception set") is how CPython 3.11 reports an
    # allocation that failed deep in C code: recursion with the limit lifted meeting RLIMIT_AS.
    if isinstance(e, (MemoryError, RecursionError, SystemError)):
        return "resource"
    if isinstance(e, OSError) and e.errno in RESOURCE_ERRNOS:
        return "resource"
    return "runtime"

def text(e):
    try:
        msg = str(e)
    except BaseException:
        msg = ""
    name = type(e).__name__
    return (name + ": " + msg if msg else name)[:300]

# The frame above the answer's holds only what the answer was given (its function, its
# arguments): nothing of the harness's is reachable from it. text() of an exception is the
# answer's code too, run here, in the answer's thread.
def call(f, args):
    try:
        return ("r", f(*args))
    except BaseException as e:
        return ("e", kind(e), text(e))

def load(compiled, ns, fn):
    try:
        exec(compiled, ns)
        f = ns.get(fn)
    except BaseException as e:
        return ("e", kind(e), text(e))
    return ("r", f if callable(f) else None)

def shown(v):
    try:
        s = repr(v)[:300]
    except BaseException:
        s = "<%s object>" % type(v).__name__
    return s if type(s) is str else "<unprintable>"
'''
_CONTAINERS = {_collections.Counter: "Counter", _collections.OrderedDict: "OrderedDict", _collections.defaultdict: "defaultdict", _collections.deque: "deque"}
_LOOP_SCOPE: dict[str, Any] = {"__builtins__": builtins, "RESOURCE_ERRNOS": frozenset(RESOURCE_ERRNOS)}
exec(compile(_LOOP_SOURCE, "<eddy candidate thread>", "exec"), _LOOP_SCOPE)  # noqa: S102 - harness code
# The digest walk (digest.py), the harness's own copy: its names bound here, before any answer code.
# Its built-ins are a copy taken now: an answer that rebinds builtins.type or builtins.iter in its
# process changes nothing the walk reads.
_DIGEST_SCOPE: dict[str, Any] = {"__builtins__": dict(vars(builtins)), "__name__": "eddy_digest"}
exec(compile(DIGEST_SOURCE, "<eddy digest>", "exec"), _DIGEST_SCOPE)  # noqa: S102 - harness code
# The record of one call inside a batch (_run's `batch`), run in the answer's thread right after
# the call: its frame's payload, or None where the harness's main thread must record it instead (a
# value that is not plain data, a payload too large for one atomic pipe write, a helper result of
# an unexpected shape). Its built-ins are a copy taken now, and it touches the answer's objects
# only through exact-type checks and marshal (which takes exact types only): no answer code runs
# in it. Nothing of the answer's reaches this scope (its functions' globals are _LOOP_SCOPE).
_DUMP_SOURCE = '''
def dump(
    i,
    elem,
    args,
    send,
    limit=MAX_PAYLOAD,
    named=None,
    leaf_ids=frozenset(map(id, (int, str, float, bool, type(None), bytes, complex, bytearray))),
    seq_ids=frozenset(map(id, (list, tuple))),
    flat=__import__("itertools").chain.from_iterable,
    is_=__import__("operator").is_,
    repeat=__import__("itertools").repeat,
    flags_of=type.__dict__["__flags__"].__get__,
    module_of=type.__dict__["__module__"].__get__,
    type_attr=type.__getattribute__,
    scalar_ids=frozenset(map(id, (int, float, bool, complex, str, bytes))),
):
    # Call i's frame payload from what its helper handed back (elem[0]), or None where the main
    # thread must record the call instead: a value that is not plain data, a payload over `limit`
    # bytes (0: any size), a helper result of an unexpected shape.
    #
    # Plain data goes as it is. An instance of a subclass of a built-in type, at any depth (a
    # numpy float64, an IntEnum member, a str subclass, a namedtuple, a dict or list subclass), goes
    # as its built-in value, as == sees it in EvalPlus (0.0 == float64(0.0), a namedtuple == the
    # tuple): read by the built-in type's own C methods, unbound (int.__index__, float.__float__,
    # str.__str__, list.copy, tuple.__getitem__, dict.keys, set.__iter__ ...), which never call the
    # subclass's overrides. Otherwise the answer's objects are only looked at through their exact
    # type (type(x), id(), issubclass against a built-in type): no answer code runs here, and
    # marshal sees exact types only (never a buffer, which it would send as raw bytes: a numpy
    # int64 is not plain data). Each container is read once: shared ones stay shared, and one that
    # holds no subclass anywhere is sent as itself (the worker's check for the caller's objects sees
    # it). With a limit, no more items are read than its bytes (each takes one byte at least).
    #
    # `named` (the main thread's), (class, name) of the standard library's containers: a value of
    # one, or of a subclass of one, goes whole, ("o", i, (text, (name, its content as plain data)),
    # arguments), which the trusted side rebuilds. Without it (in a batch) a value whose type is a
    # subclass of dict is left to the main thread.
    r = elem[0]
    try:
        if type(r) is not tuple or not r or type(r[0]) is not str:
            return None
        if len(r) == 2 and r[0] == "r":
            tag = "r"
            v = r[1]
            t = type(v)
            # A scalar of an exact type, a list or tuple of scalars of one exact type, a dict of
            # scalars (most answers): nothing more to look at (their items in C).
            if t is list or t is tuple:
                one = not v or (id(type(v[0])) in leaf_ids and all(map(is_, map(type, v), repeat(type(v[0])))))
            else:
                one = t is dict and leaf_ids.issuperset(map(id, map(type, dict.keys(v)))) and leaf_ids.issuperset(map(id, map(type, dict.values(v))))
            if id(t) not in leaf_ids and not one:

                def tree(a):
                    # Whether a list or tuple holds only lists and tuples of exact types down to
                    # scalars of exact types, looked at level by level at C speed (a matrix, a list
                    # of pairs); within a bound on the items a level reaches (shared lists).
                    level, most = a, 16 * len(a) + 65536
                    for _ in range(8):
                        ids = set(map(id, map(type, level)))
                        if ids <= leaf_ids:
                            return True
                        if not ids <= seq_ids:
                            return False
                        level = list(flat(level))
                        most -= len(level)
                        if most < 0:
                            return False
                    return False

                if not ((t is list or t is tuple) and tree(v)):
                    name = None
                    if named is None:
                        if issubclass(t, dict) and t is not dict:
                            return None
                    else:
                        for cls, known in named:
                            if issubclass(t, cls):
                                name = known
                                if name == "deque":
                                    v = list(cls.__iter__(v))
                                ordered = cls.keys if name == "OrderedDict" else None
                                break
                    memo = {}  # id of each container read -> its built-in value (None while its items are read)

                    def value(x):
                        # The built-in value of a scalar, or of a container already read.
                        tx = type(x)
                        if id(tx) in leaf_ids:
                            return x
                        w = memo.get(id(x), memo)
                        if w is not memo:
                            if w is None:
                                raise ValueError("a container that holds itself")
                            return w
                        if issubclass(tx, int):  # (bool has no subclass)
                            return int.__index__(x)
                        if issubclass(tx, float):
                            return float.__float__(x)
                        if issubclass(tx, str):
                            return str.__str__(x)
                        if issubclass(tx, bytes):
                            return bytes.__bytes__(x)
                        if issubclass(tx, complex):
                            return complex.__complex__(x)
                        if issubclass(tx, bytearray):
                            return bytearray.copy(x)
                        if type(tx) is type and not flags_of(tx) & 512 and module_of(tx) == "numpy":
                            # A numpy scalar (int64, bool_, float32 ...: no subclass of a built-in
                            # type): a static type of numpy's C code, which no answer can change
                            # (512: Py_TPFLAGS_HEAPTYPE, set on every class Python code makes), read
                            # by its own `item`, as EvalPlus's == sees np.int64(3) == 3. An array
                            # of more than one element has no item: not plain data.
                            got = type_attr(tx, "item")(x)
                            if id(type(got)) in scalar_ids:
                                return got
                        raise ValueError("not plain data")

                    budget = limit
                    todo = [(v, None)]
                    while todo:
                        x, read = todo.pop()
                        key = id(x)
                        if read is None:
                            if key in memo:
                                continue
                            tx = type(x)
                            b = None
                            if id(tx) in leaf_ids:
                                continue
                            if tx is list or tx is tuple or tx is set or tx is frozenset:
                                kind, a = tx, x
                            elif tx is dict:
                                kind, a, b = dict, list(dict.keys(x)), list(dict.values(x))
                            elif issubclass(tx, list):
                                kind, a = list, list.copy(x)
                            elif issubclass(tx, tuple):
                                kind, a = tuple, tuple.__getitem__(x, slice(None))
                            elif issubclass(tx, dict):
                                kind, a, b = dict, list(dict.keys(x)), list(dict.values(x))
                            elif issubclass(tx, set):
                                kind, a = set, list(set.__iter__(x))
                            elif issubclass(tx, frozenset):
                                kind, a = frozenset, list(frozenset.__iter__(x))
                            else:
                                value(x)  # a scalar of a subclass, or not plain data (raises)
                                continue
                            if limit:
                                budget -= len(a) * (1 if b is None else 2) + 1
                                if budget < 0:
                                    return None
                            # Nothing but exact types inside (most answers): no item walked.
                            if (tree(a) if kind is list or kind is tuple else not set(map(id, map(type, a))) - leaf_ids) and (
                                b is None or not set(map(id, map(type, b))) - leaf_ids
                            ):
                                if tx is kind:
                                    memo[key] = x
                                elif b is not None:
                                    memo[key] = dict(zip(a, b))
                                else:
                                    memo[key] = a if kind is list or kind is tuple else kind(a)
                                continue
                            memo[key] = None
                            todo.append((x, (kind, a, b, tx is kind)))
                            todo.extend([(c, None) for c in a])
                            if b is not None:
                                todo.extend([(c, None) for c in b])
                        else:
                            kind, a, b, exact = read
                            got = list(map(value, a))
                            same = exact and list(map(id, got)) == list(map(id, a))
                            if b is not None:
                                vals = list(map(value, b))
                                same = same and list(map(id, vals)) == list(map(id, b))
                                w = x if same else dict(zip(got, vals))
                            else:
                                w = x if same else (got if kind is list else kind(got))
                            if len(w) != len(a):  # items that were distinct in it and are equal as built-ins
                                raise ValueError("items alike")
                            memo[key] = w
                    v = value(v)
                    if name is not None:
                        if name == "OrderedDict":
                            # In its own order, not that of the dict beneath it (move_to_end), read by
                            # its C iteration, which hashes each key: only where no key was converted
                            # (exact types, whose hash is C code).
                            if list(map(id, dict.keys(v))) != list(map(id, dict.keys(r[1]))):
                                return None
                            order = list(ordered(r[1]))
                            v = dict(zip(order, map(v.__getitem__, order)))
                        tag = "o"
                        v = (name + "(...)", (name, v))
            after = args if send else None
            try:
                payload = dumps((tag, i, v, after))
            except ValueError:
                dumps(v)  # plain itself (its arguments are not): the arguments are not sent
                payload = dumps((tag, i, v, NOT_PLAIN))
        elif len(r) == 3 and r[0] == "e" and type(r[2]) is str:
            k = r[1]
            payload = dumps(("e", i, "resource" if type(k) is str and k == "resource" else "runtime", r[2][:300]))
        else:
            return None
    except BaseException:
        return None
    return payload if not limit or len(payload) <= limit else None
'''
# One frame, header and MAC included, in at most PIPE_BUF bytes: a write of it to the result pipe
# is atomic, whole or not at all, whatever signal arrives (the main thread's `send` loops instead).
PIPE_ATOMIC = 4096
NOT_PLAIN = "<arguments no longer plain data>"
_DUMP_SCOPE: dict[str, Any] = {
    "__builtins__": dict(vars(builtins)),
    "__name__": "eddy_dump",
    "dumps": marshal.dumps,
    "NOT_PLAIN": NOT_PLAIN,
    "MAX_PAYLOAD": PIPE_ATOMIC - 4 - MAC_BYTES,
}
exec(compile(_DUMP_SOURCE, "<eddy dump>", "exec"), _DUMP_SCOPE)  # noqa: S102 - harness code
# The one wording of an exception, for the harness's own set-up failures too.
_exc: Callable[[BaseException], str] = _LOOP_SCOPE["text"]


# ---------------------------------------------------------------- warm-up, in the zygote

# The candidate's sys.stdin, sys.stdout and sys.stderr (prepare_streams), made once in the zygote.
_STREAMS: tuple[Any, Any, Any] | None = None


def prepare_streams() -> None:
    """Make the candidate's three text streams once, here in the zygote: in a fork, making a text
    stream runs a good deal of Python's I/O code, whose pages are copied on the first write (about
    160 copy-on-write faults and 0.4 ms of CPU for the three, issue #36). Each wraps a descriptor
    number (0, 1, 2) that the candidate points where its own must go (/dev/null, its output pipe)
    before it takes them; they are made while 1 and 2 are a pipe, as they will be in the
    candidate, so that what a stream learns of its descriptor when it is made (not seekable, not
    a terminal, the pipe's block size) is what it would have learnt there. The zygote never uses
    them: each candidate starts with them empty."""
    global _STREAMS
    r, w = os.pipe()
    saved = (os.dup(1), os.dup(2))
    try:
        os.dup2(w, 1)
        os.dup2(w, 2)
        _STREAMS = (open(0, closefd=False), open(1, "w", closefd=False), open(2, "w", closefd=False))
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + (r, w):
            os.close(fd)


# An answer of a common shape (written for this), which the zygote checks a few times in warm_up.
_WARM_CODE = """import math
from collections import Counter

def solve(items, k=1):
    seen = {}
    out = []
    for i, x in enumerate(items):
        if x in seen or (i % k == 0 and x > 0):
            out.append(x * 2)
        elif isinstance(x, str):
            out += [c for c in x if c.isalpha()]
        else:
            seen[x] = math.floor(x / 3) if x else None
    while out and out[-1] is None:
        out.pop()
    try:
        return sorted(out, key=lambda v: (str(v), len(str(v))))
    except TypeError as e:
        return [str(e), Counter(out).most_common(1)]
"""


def warm_up(rounds: int = 12) -> None:
    """Run once in the zygote before it serves: the harness code that every keeper and candidate
    runs and that can run here without effect (the static check, the loop's helpers, the reading
    of frames and of /proc). CPython 3.11 counts a code object's calls and loops in the code
    object, then rewrites its bytecode (quickening) and specialises its instructions in place:
    each is a write to the code object's pages, which in a fork of the zygote is a copy-on-write
    fault. Done here, each fork only reads them (issue #36). Nothing here sees a job."""
    procfd = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
    r, w = os.pipe()
    me = os.getpid()
    loop = _LOOP_SCOPE
    try:
        for _ in range(rounds):
            precheck(_WARM_CODE, "solve", 2)
            precheck(_WARM_CODE, "other", 2)
            precheck("def solve(a, b):\n    return a +\n", "solve", 2)
            _sample(me, procfd, True)
            _vm_bytes()
            mac(b"\0" * 16, 1, b"warm")
            frame = marshal.dumps(("warm", 1))
            _write_all(w, (struct.pack(">I", len(frame)) + frame) * 2)
            _read_frames(r, 2)
            compiled = compile("def f(x):\n    return x\n", "candidate.py", "exec")
            f = loop["load"](compiled, {"__builtins__": builtins}, "f")[1]
            loop["call"](f, (1,))
            loop["call"](f, ())
            loop["shown"](f)
            loop["kind"](OSError(errno.ENOMEM, "warm"))
            for out in (("r", [1, "a", (2.5, None)]), ("e", "runtime", "ValueError: warm"), ("r", f), ("x",)):
                _DUMP_SCOPE["dump"](3, (out,), ([1, 2], 3), True)
        for _ in range(WATCH_ROUNDS):
            try:
                _warm_watch(procfd)
            except OSError:
                break  # a warm-up only: the keepers would warm up themselves
    finally:
        os.close(procfd)
        os.close(r)
        os.close(w)


WATCH_ROUNDS = 8


def _warm_watch(procfd: int) -> None:
    """The keeper's watch over a child of the zygote's that marks its start, waits a few
    milliseconds and exits, under limits it cannot reach: the same code a keeper runs."""
    ctl_r, ctl_w = os.pipe()
    mark_r, mark_w = os.pipe()
    pid = iso.fork()
    if pid == 0:
        try:
            os.write(mark_w, struct.pack(MARK_FORMAT, time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID), *([0.0] * 12)))
            select.select([], [], [], 0.008)
        finally:
            os._exit(0)
    os.close(mark_w)
    try:
        limits = marshal.dumps((60_000.0, 60_000.0, 60_000.0))
        os.write(ctl_w, struct.pack(">I", len(limits)) + limits)
        _Watch(pid, ctl_r, mark_r, procfd).run()  # closes mark_r
    finally:
        os.close(ctl_r)
        os.close(ctl_w)


# ---------------------------------------------------------------- the candidate


def candidate(cfg: Config, fds: dict[str, int], uid: int | None, nproc: int, workdir: str, mark_w: int, python: bool = False, wait_on: int = -1) -> None:
    """The candidate's process: contain, read the job, check, run. Never returns.

    Forked ahead of need (a warm sandbox): everything that does not depend on the job is set up
    first, then it waits for the job, which brings the limits and the key. With bubblewrap and a
    sandbox made for a Python answer (`python`), that includes dropping every capability and
    installing the allow-list: only the rlimits wait for the job (another language's runtime
    needs a wider list, installed once its job says which)."""
    res_w = fds["res"]
    # When each step of the set-up ended (monotonic clock, shared across namespaces): sent to the
    # keeper with the start mark, for the per-phase profile of a verdict (STAMPS).
    stamps = [time.monotonic(), time.process_time()]
    # Measured before /proc is covered; the memory budget comes on top of it (plus one thread
    # stack: the candidate's code runs in a thread of its own).
    stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
    base_vm = _vm_bytes() + (stack if 0 < stack < 1 << 30 else 8 << 20)
    try:
        iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
        os.setsid()  # its own session and group: kill(0) reaches only what it started
        if cfg.mode == "bwrap":
            # PID 1 of its namespace, in a mount namespace of its own user namespace: scratch
            # space of its own, and an empty /proc (its own memory is not a file to read).
            for args in cfg.scratch_mounts or scratch_mounts():
                iso.mount_bytes(*args)
            os.mkdir(workdir, 0o700)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fds["out"], 1)
        os.dup2(fds["out"], 2)
        job_r = fds["job"]
        keep = sorted({0, 1, 2, res_w, job_r, mark_w})
        prev = 3
        for fd in keep:
            if fd >= prev:
                os.closerange(prev, fd)
                prev = fd + 1
        os.closerange(prev, 65536)
        if _STREAMS is not None:
            sys.stdin, sys.stdout, sys.stderr = _STREAMS
        else:
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
        os.chdir(workdir)
        _c_signal.signal(_IGNORED_SIGNAL, _c_signal.SIG_IGN)
        for sig in _DEFAULT_SIGNALS:
            _c_signal.signal(sig, _c_signal.SIG_DFL)
        if not cfg.env_ready:
            os.environ.clear()
            os.environ.update(candidate_env(workdir))
        # tempfile, where loaded (the fallback's zygote loads it), reads TMPDIR (candidate_env) only once.
        tf = sys.modules.get("tempfile")
        if tf is not None:
            setattr(tf, "tempdir", workdir)  # noqa: B010 - a module attribute pyright cannot see
        # What os.fork() would have done in this child (isolation.py fork): random's module-level
        # generator gets a seed of its own, so no two answers draw the same numbers.
        rnd = sys.modules.get("random")
        if rnd is not None:
            rnd.seed()
        early = python and cfg.mode == "bwrap"
        if early:
            iso.drop_capabilities(not cfg.inherited_dropped)
            iso.apply_seccomp(cfg.filter)
        # It waits on the CPU its worker ran on when it asked for this sandbox (and likely sends
        # the job from): woken there, by a worker that then only waits, rather than on another
        # CPU, which may be idle (waking an idle virtual CPU costs the host up to a millisecond)
        # or busy. Its set-up above ran wherever the kernel put it.
        if wait_on >= 0:
            try:
                os.sched_setaffinity(0, {wait_on})
            except OSError:
                pass
        stamps += (time.monotonic(), time.process_time())
        # Waiting here is the warm state; the job is trusted data from the worker.
        head, calls_blob = _read_frames(job_r, 2)
        stamps += (time.monotonic(), time.process_time())
        os.close(job_r)
        code, fn, arity, keep_args, send_args, memory_mb, cpu_s, key, guard, foreign, checked, call_limits, digest_calls, sent_from = marshal.loads(head)
        if early and foreign is not None:
            raise RuntimeError("another language's job in a sandbox made for Python")
        # On the CPU the worker sent the job from, from now on (isolation.py stay_on).
        iso.stay_on(sent_from if type(sent_from) is int else -1)
        # Another language's calls stay JSON text (relay.py): they are its harness's input.
        calls: list[tuple[Any, ...]] = marshal.loads(calls_blob) if foreign is None else []
        calls_json: bytes = calls_blob if foreign is not None else b""
        del head, calls_blob
        cpu = max(1, int(math.ceil(cpu_s))) + PRECHECK_CPU_S
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        limit = base_vm + (memory_mb + PRECHECK_MEMORY_MB) * 1024 * 1024
        if foreign is not None:
            foreign = Foreign(*foreign)
            limit = (memory_mb + foreign.vm_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
        resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if cfg.mode == "bwrap":
            if not early:  # (a Python answer's sandbox did both before its job)
                iso.drop_capabilities(not cfg.inherited_dropped)
                iso.apply_seccomp(cfg.filter if foreign is None else cfg.filter_foreign)
        else:
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            if cfg.seccomp:
                iso.apply_seccomp(iso.fallback_filter(cfg.protect + [os.getppid(), cfg.zygote]))
            else:
                iso.prctl(iso.PR_SET_NO_NEW_PRIVS, 1)
            if landlock.ABI:
                # Files (issue #43): from here on it, and all it starts, may create, write and
                # remove them only in its own folder (removed after it); reading is unchanged.
                landlock.restrict(workdir)
        if foreign is None and call_limits is not None and (cfg.mode == "bwrap" or cfg.seccomp):
            # Each call's CPU time is the process's own clock: with no process of the answer's
            # own, that is all of its work (EvalPlus, whose limits these are, forbids them too).
            iso.apply_seccomp(cfg.filter_no_spawn or iso.no_spawn_filter())
        stamps += (time.monotonic(), time.process_time())
    except BaseException as e:
        try:
            _send_setup(res_w, _exc(e))
        finally:
            os._exit(112)
    seq = 0

    def emit(obj: Any) -> None:
        nonlocal seq
        payload = marshal.dumps(obj)
        _write_all(res_w, struct.pack(">I", len(payload) + MAC_BYTES) + mac(key, seq, payload) + payload)
        seq += 1

    if foreign is not None:
        runtime_filter = (cfg.filter_runtime or iso.no_spawn_filter(RESULT_FD)) if cfg.mode == "bwrap" or cfg.seccomp else b""

        def lock_down() -> None:
            if runtime_filter:
                iso.apply_seccomp(runtime_filter)

        walk = _DIGEST_SCOPE["digest"]

        def digest_of(v: Any) -> str:
            try:
                return walk(plain(v), False) or NO_DIGEST
            except (ValueError, TypeError, RecursionError, MemoryError):
                return NO_DIGEST

        relay(foreign, code, fn, arity, calls_json, keep_args or send_args, memory_mb, emit, mark_w, workdir, lock_down, call_limits, digest_calls, digest_of)
    try:
        # A code text the check has passed before (the worker remembers, checked_code.py) is only compiled.
        verdict, compiled = (None, compile(code, "candidate.py", "exec")) if checked else precheck(code, fn, arity)
    except BaseException as e:  # the analysis itself ran out of memory or time
        verdict, compiled = ("static_error", "the code could not be analysed within the judge's limits (%s)" % type(e).__name__), None
    if verdict is not None or compiled is None:
        emit(("pre",) + (verdict or ("static_error", "the code could not be compiled")))
        os._exit(0)
    limit = base_vm + memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass
    stamps += (time.monotonic(), time.process_time())
    emit(("pre", None, ""))
    # The zygote's list holds while nothing has been imported since it was made.
    harness = cfg.harness_modules if len(sys.modules) == cfg.modules_count else harness_modules()
    _run(compiled, fn, calls, keep_args or send_args, key, seq, res_w, mark_w, guard, stamps, harness, call_limits, digest_calls)


LEFT_A_THREAD = "the answer left a thread running when %s returned (the judge records nothing while answer code runs)"
# A thread started while the answer's own thread ended, after its last call (a thread-local's finalizer).
LEFT_AT_THE_END = "the answer left a thread running when its own thread ended after its last call (%s) (the judge records nothing while answer code runs)"


# How often the harness looks at a call's CPU time when the call has a limit of its own.
CALL_POLL_S = 0.05
OVER_ITS_LIMIT = "over its own limit"
NO_RESULT = "the call left no result"


def _run(
    compiled: CodeType,
    fn: str,
    calls: list[tuple[Any, ...]],
    send_args: bool,
    key: bytes,
    seq: int,
    fd: int,
    mark_w: int,
    guard: bool,
    stamps: list[float],
    harness: tuple[str, ...],
    call_limits: list[float] | None = None,
    digest_calls: list[int] | None = None,
) -> None:
    """Run the candidate's load and its calls in one thread of the answer's own, fed one job at a
    time (the load; the calls in batches, `batch`, whose frames that thread writes from C as each
    call ends; the last call, and a call whose value goes back as a digest, one job each); this
    (main) thread hands each job over, waits, and records what a batch did not. No answer code runs
    while anything is recorded: between jobs the answer's thread is parked in C (taking the next
    job from a queue), with no Python frame of any kind, and in a batch it records a call only once
    that call's trace and profile functions are cleared, the collector is off and no other thread
    of the answer's lives; a call that leaves another thread running fails; every object the answer
    handed over is kept alive until the process ends (no finalizer runs when the harness drops a
    reference); and the garbage collector is off while anything is recorded (the answer's thread
    switches it off after each call, and on again before the next). Every helper it uses (built-ins
    included) is bound in a local before any answer code runs, so nothing the candidate patches
    changes what is reported, and the key lives only in this frame, the audit hook's closure and
    the batch's pipeline of C iterators (which no frame of the answer's thread references)."""
    dumps = marshal.dumps
    loads = marshal.loads
    write = os.write
    close = os.close
    pack = struct.pack
    blake = blake2b
    exit_ = os._exit
    getpid = os.getpid
    ident = _thread.get_ident
    start = _thread.start_new_thread
    threads = _thread._count  # type: ignore[attr-defined]
    set_sentinel = _thread._set_sentinel  # type: ignore[attr-defined]
    new_lock = _thread.allocate_lock
    new_queue = _queue.SimpleQueue
    sink = _collections.deque
    chain = itertools.chain
    tee = itertools.tee
    starmap = itertools.starmap
    repeat = itertools.repeat
    take = operator.methodcaller("acquire")
    give = operator.methodcaller("release")
    from_iterable = itertools.chain.from_iterable
    first = operator.itemgetter(0)
    third = operator.itemgetter(2)
    eq = operator.eq
    takewhile = itertools.takewhile
    call0 = operator.call  # type: ignore[attr-defined]
    settrace = sys.settrace
    setprofile = sys.setprofile
    gc_enable = gc.enable
    gc_disable = gc.disable
    # Built-ins too: the answer's code may rebind builtins.enumerate, len, zip… before any call.
    map_, zip_, iter_, len_, type_ = map, zip, iter, len, type
    tuple_, str_, value_error, range_ = tuple, str, ValueError, range
    load = _LOOP_SCOPE["load"]
    call = _LOOP_SCOPE["call"]
    shown = _LOOP_SCOPE["shown"]
    digest = _DIGEST_SCOPE["digest"]
    by_digest = frozenset(digest_calls or ())
    getframe = sys._getframe
    prefixed = str.startswith
    no_module = ModuleNotFoundError
    harness_ctypes = ("ctypes", "_ctypes")
    library = tuple_(d + "/" for d in LIBRARY_DIRS)
    me = getpid()
    main = ident()
    clock = time.process_time
    # Each call's CPU time (ms; the process's, while this thread only waits), sent before "done":
    # a template may limit each call on its own (an imported EvalPlus problem does).
    spent: list[float] = []
    not_plain = NOT_PLAIN
    # Every result the answer's thread hands back (a helper's tuple, holding the call's value)
    # stays here until the process ends: nothing the answer handed over is let go of, so no
    # __del__ or weakref callback of the answer's runs because of the harness. (The results of
    # one run are at most MAX_RESULT_BYTES on the wire.)
    kept: list[Any] = []
    keep = kept.append
    stop = object()
    # The answer's thread, while it lives: its job queue and its sentinel, a lock the interpreter
    # releases once the thread's state is gone, which the thread also releases each time it has
    # handed a result back (and this thread takes again). `live` is 1 while the thread is there.
    jobs: Any = None
    sentinel: Any = None
    live = 0

    # The keyed hash's state once the key is in: each frame's MAC starts from a copy (mac()'s value,
    # without hashing the key block again for every frame).
    keyed = blake(key=key, digest_size=MAC_BYTES)

    def seal(obj: Any) -> bytes:
        """A frame with the next sequence number (sent with `send`, in order)."""
        payload = dumps(obj)
        h = keyed.copy()
        h.update(pack(">Q", seq))
        h.update(payload)
        return pack(">I", len_(payload) + MAC_BYTES) + h.digest() + payload

    def send(data: bytes) -> None:
        nonlocal seq
        seq += 1
        while data:
            data = data[write(fd, data):]

    def emit(obj: Any) -> None:
        send(seal(obj))

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "import" and args and args[0] in harness_ctypes and library and prefixed(getframe(1).f_code.co_filename, library):
            # numpy loads ctypes only if it can: refused as if absent (it imports without it).
            raise no_module("No module named %r" % args[0])
        if event in ALWAYS_DENIED or event.startswith("ctypes.") or (event == "import" and args and args[0] in HARNESS_MODULES) or (event in MAIN_THREAD_DENIED and ident() == main):
            # Refused, reported, and the process ends: a reward hack is a finding.
            if getpid() == me:
                try:
                    emit(("tamper", event if type(event) is str else "?"))
                except BaseException:
                    pass
            exit_(TAMPER_EXIT)

    def begin() -> tuple[str, str] | None:
        """Start the answer's thread, from C: a pipeline of C iterators, drained by a deque that
        keeps nothing. At its start it takes its sentinel and holds it, hands it over and lets
        this thread go on; then, for each job (helper, *arguments) taken from its queue, it clears
        any trace or profile function left in it, switches the collector on, runs the helper (the
        only Python frame in the thread, holding only what the answer was given), switches the
        collector off, hands the result back (`kept`), releases the sentinel, and goes on only in
        this process (not in a child forked by the answer). Between jobs it waits in the queue's C
        code. The queue, the locks and the pipeline are reachable from
        nowhere else."""
        nonlocal jobs, sentinel, live
        jobs = new_queue()
        ready = new_lock()
        ready.acquire()
        hold: list[Any] = []
        # The sentinel, made in the thread: held there (taken), handed over (mine), and released
        # after each job (again, repeated).
        mine, taken, again = tee(map_(call0, (set_sentinel,)), 3)
        taken_jobs = map_(first, zip_(iter_(jobs.get, stop), map_(settrace, repeat(None)), map_(setprofile, repeat(None)), map_(call0, repeat(gc_enable))))
        results = map_(first, zip_(starmap(call0, taken_jobs), map_(call0, repeat(gc_disable))))
        # A child the answer forked in a call, back from it (as a function would return), ends
        # there instead of waiting for a job: the pipeline stops where the process is not this one.
        here = map_(eq, map_(call0, repeat(getpid)), repeat(me))
        handed = takewhile(third, zip_(map_(keep, results), map_(give, from_iterable(map_(repeat, again))), here))
        pipe: Any = chain(map_(hold.append, mine), map_(take, taken), map_(call0, (ready.release,)), handed)
        try:
            start(sink((), 0).extend, (pipe,))
        except RuntimeError as e:  # no thread to be had: the process or memory limit, already used up
            return ("resource", "the judge could not start the answer's thread: %s" % _exc(e))
        ready.acquire()
        sentinel = hold[0]
        live = 1
        return None

    def hand(task: tuple[Any, ...], over: Callable[[], tuple[str, str] | None] | None = None) -> tuple[Any, tuple[str, str] | None]:
        """task[0](*task[1:]) in the answer's thread: (what it handed back, None), or (None, error)
        when it could not start or ended without handing anything back. With `over`, looked at
        every CALL_POLL_S while it runs: an error from it is returned at once (a call over its own
        CPU limit; the whole process then ends, EvalPlus times out each input)."""
        nonlocal live
        if not live:
            failed = begin()
            if failed is not None:
                return None, failed
        n = len_(kept)
        jobs.put(task)
        # The sentinel comes back released either way: the thread handed a result back, or it
        # ended without one (an exception out of the pipeline) and its state is gone.
        if over is not None:
            while not sentinel.acquire(True, CALL_POLL_S):
                stop = over()
                if stop is not None:
                    return None, stop
        else:
            sentinel.acquire()
        if len_(kept) == n:
            live = 0
            gc_disable()
            return None, ("runtime", NO_RESULT)
        return kept[-1], None

    def outcome(out: Any) -> tuple[Any, tuple[str, str] | None]:
        """What one of the loop's helpers (`call`, `load`) returned, ("r", value) or ("e", kind,
        text): (value, error)."""
        if type_(out) is tuple_ and len_(out) == 2 and out[0] == "r":
            return out[1], None
        if type_(out) is tuple_ and len_(out) == 3 and out[0] == "e" and type_(out[2]) is str_:
            return None, ("resource" if out[1] == "resource" else "runtime", out[2])
        return None, ("runtime", NO_RESULT)

    def job(task: tuple[Any, ...], until: float = 0.0) -> tuple[Any, tuple[str, str] | None]:
        """task[0](*task[1:]) in the answer's thread, task[0] being one of the loop's helpers
        (`call`, `load`): (value, error). With `until` (process CPU time), a call with a CPU limit
        of its own."""
        out, err = hand(task, (lambda: ("over", OVER_ITS_LIMIT) if clock() > until else None) if until > 0.0 else None)
        return (None, err) if err is not None else outcome(out)

    def finish() -> None:
        """Stop the answer's thread and wait until its state is gone: finalizers of its
        thread-local data run there, inside the answer's time, before anything more is sent."""
        nonlocal live
        if live:
            jobs.put(stop)
            sentinel.acquire()
            live = 0

    def record(
        i: int,
        args: tuple[Any, ...],
        value: Any,
        make: Callable[..., bytes | None] = _DUMP_SCOPE["dump"],
        named: tuple[tuple[type, str], ...] = tuple(_CONTAINERS.items()),
    ) -> bytes:
        """Call i's frame, sealed (sent by the caller): its value and its arguments after it.
        `make` (dump) makes the payload here as it does in a batch, of any size, with the standard
        library's containers (`named`, taken before any answer code ran): plain data, an instance
        of a subclass of a built-in type as its built-in value, a Counter or a deque whole; none
        of the answer's code runs in it. Anything else is shown by its repr."""
        after: Any = args if send_args else None
        if i in by_digest:
            # An expected output too large to keep was stored as its digest: the result's digest
            # (digest.py's walk, exact types only, none of the value's own code) goes back instead
            # of the result, computed in the answer's thread and charged to the answer.
            hexed, derr = job((call, digest, (value, False)))
            if threads() != live:
                emit(("e", i, "runtime", LEFT_A_THREAD % ("the digest of its value (%s)" % fn)))
                exit_(0)
            if derr is None and type_(hexed) is not str_:
                # Not plain data as it is: an instance of a subclass of a built-in type has the
                # digest of its built-in value (a dict's for a Counter's), as `make` reads it.
                made = make(i, (("r", value),), None, False, 0, named)
                whole: Any = loads(made) if made is not None else ("",)
                if whole[0] == "o" and whole[2][1][0] != "deque":
                    whole = ("r", i, whole[2][1][1])
                if whole[0] == "r":
                    hexed, derr = job((call, digest, (whole[2], False)))
                    if threads() != live:
                        emit(("e", i, "runtime", LEFT_A_THREAD % ("the digest of its value (%s)" % fn)))
                        exit_(0)
            if derr is not None:
                return seal(("e", i, "resource" if derr[0] == "resource" else "runtime", derr[1][:300]))
            if type_(hexed) is not str_:
                hexed = NO_DIGEST
            try:
                return seal(("r", i, hexed, after))
            except value_error:
                return seal(("r", i, hexed, not_plain))
        # One marshal call over the value and the arguments: an object that is both comes back as
        # one object (a reference), so the worker sees sharing.
        made = make(i, (("r", value),), args, send_args, 0, named)
        if made is not None:
            h = keyed.copy()
            h.update(pack(">Q", seq))
            h.update(made)
            return pack(">I", len_(made) + MAC_BYTES) + h.digest() + made
        # Not plain data: its repr is the answer's code, run in the answer's thread (and only
        # once the arguments are recorded).
        try:
            recorded = dumps(after)
        except value_error:
            recorded = dumps(not_plain)
        text, rerr = job((call, shown, (value,)))
        if threads() != live:
            emit(("e", i, "runtime", LEFT_A_THREAD % ("the repr of its value (%s)" % fn)))
            exit_(0)
        if rerr is not None or type_(text) is not str_:
            text = "<unprintable>"
        return seal(("o", i, text[:300], loads(recorded)))

    # A run of calls in one job (`batch`): each call's frame is made and written by the answer's
    # thread itself, from C, right after the call, with no hand-over to this thread and back.
    held: list[Any] = []  # what each call of a batch handed back, kept until the process ends
    starts: list[float] = []  # the process's CPU clock when each call of the batch began
    ends: list[float] = []  # ... and when it ended
    written: list[Any] = []  # one entry per frame the batch has written
    wlock = new_lock()  # held by the answer's thread while it writes a frame
    dump = _DUMP_SCOPE["dump"]
    drain = sink((), 0).extend
    keyed_mac = functools.partial(blake, key=key, digest_size=MAC_BYTES)
    head_of = struct.Struct(">I").pack
    seq_of = struct.Struct(">Q").pack
    digest_of = operator.methodcaller("digest")
    add = operator.add
    second = operator.itemgetter(1)
    checked_ok = operator.itemgetter(5)
    in_here = operator.itemgetter(6)
    truth = operator.truth
    count = itertools.count

    def limit_of(i: int) -> float | None:
        return call_limits[i] if call_limits is not None and i < len_(call_limits) else None

    def batch(i0: int, i1: int) -> int:
        """Calls i0 … i1-1 as one job of the answer's thread: for each, from C, it clears any
        trace or profile function, switches the collector on, runs the call (`call`, the one
        Python frame above the answer's), switches the collector off, clears trace and profile
        again, counts the live threads, keeps what the call handed back (`held`), makes the
        frame's payload (`dump`, harness code run with no answer code able to run: one thread,
        no tracer, no collection) and seals and writes the frame under `wlock`, atomically (at most
        PIPE_BUF bytes). A crash in call k leaves calls before k recorded, as one job per call
        did. It stops at the first call that left a thread running or whose frame `dump` would
        not make; that call is then recorded here as a single call's is. The index of the next
        call to make."""
        nonlocal seq
        starts.clear()
        ends.clear()
        written.clear()
        todo = calls[i0:i1]
        pre = zip_(map_(settrace, repeat(None)), map_(setprofile, repeat(None)), map_(starts.append, map_(call0, repeat(clock))), map_(call0, repeat(gc_enable)))
        results = map_(call, repeat(f), map_(first, zip_(iter_(todo), pre)))
        # A child the answer forked in a call, back from it, writes nothing and ends (`here`).
        post = zip_(
            results,
            map_(call0, repeat(gc_disable)),
            map_(ends.append, map_(call0, repeat(clock))),
            map_(settrace, repeat(None)),
            map_(setprofile, repeat(None)),
            map_(eq, map_(call0, repeat(threads)), repeat(1)),
            map_(eq, map_(call0, repeat(getpid)), repeat(me)),
        )
        to_keep, to_check = tee(post, 2)
        elems = takewhile(checked_ok, takewhile(in_here, map_(second, zip_(map_(held.append, to_keep), to_check))))
        p1, p2, p3 = tee(takewhile(truth, map_(dump, count(i0), elems, iter_(todo), repeat(send_args))), 3)
        macs = map_(digest_of, map_(keyed_mac, map_(add, map_(seq_of, count(seq)), p2)))
        frames = map_(add, map_(add, map_(head_of, map_(add, map_(len_, p1), repeat(MAC_BYTES))), macs), p3)
        locked = map_(first, zip_(frames, map_(take, repeat(wlock))))
        writes = zip_(map_(written.append, map_(write, repeat(fd), locked)), map_(give, repeat(wlock)))
        over_by: list[float] = []

        def over() -> tuple[str, str] | None:
            """The call running now, if it is over its own CPU limit. The lock is then kept:
            the answer's thread writes no frame after the one that says so."""
            j = len_(starts) - 1
            limit = limit_of(i0 + j) if j >= 0 and len_(ends) == j else None
            if not limit or clock() <= starts[j] + limit:
                return None
            wlock.acquire()
            if len_(ends) != j:  # it ended meanwhile: its frame is written or on its way
                wlock.release()
                return None
            over_by[:] = [(clock() - starts[j]) * 1000.0, limit * 1000.0]
            return ("over", OVER_ITS_LIMIT)

        _, err = hand((drain, writes), over if call_limits is not None else None)
        n = len_(written)
        seq += n
        for j in range_(n):
            spent.append((ends[j] - starts[j]) * 1000.0)
        k = i0 + n
        if err is not None and err[0] == "over":
            emit(("e", k, "resource", "CPU time limit of one input exceeded: %.0f ms of CPU time, over its own limit of %.0f ms" % (over_by[0], over_by[1])))
            exit_(0)
        if k == i1:
            return k
        if len_(ends) > n:
            spent.append((ends[n] - starts[n]) * 1000.0)
            elem = held[-1]
            if elem[5] is not True:
                # Recorded before anything else: nothing of this call's is read.
                emit(("e", k, "runtime", LEFT_A_THREAD % ("its call (%s)" % fn)))
                exit_(0)
            value, cerr = outcome(elem[0])
        else:
            # The answer's thread ended in call k without handing anything back.
            spent.append((clock() - starts[n]) * 1000.0 if len_(starts) > n else 0.0)
            value, cerr = None, err or ("runtime", NO_RESULT)
            if threads() != live:
                emit(("e", k, "runtime", LEFT_A_THREAD % ("its call (%s)" % fn)))
                exit_(0)
        if cerr is not None:
            send(seal(("e", k, "resource" if cerr[0] == "resource" else "runtime", cerr[1][:300])))
        else:
            send(record(k, calls[k], value))
        return k + 1

    ns: dict[str, object] = {"__name__": "candidate", "__file__": "candidate.py", "__doc__": None, "__builtins__": builtins}
    # Nothing of the harness stays importable: its modules (and ctypes, which the zygote loaded
    # for prctl) leave sys.modules, and a fresh import of them is refused by the hook.
    for name in harness:
        sys.modules.pop(name, None)
    main_mod = sys.modules.get("__main__")
    if main_mod is not None:
        vars(main_mod).clear()
    gc_disable()
    emit(("ready",))
    if guard:
        sys.addaudithook(hook)
    # Where the candidate's CPU time starts, for the keeper (harness code, before any candidate code).
    try:
        stamps += (time.monotonic(), time.process_time())
        write(mark_w, pack(MARK_FORMAT, time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID), *stamps))
        os.close(mark_w)
    except OSError:
        pass
    f, err = job((load, compiled, ns, fn))
    if not calls:
        finish()
    if threads() != live:
        emit(("load", "runtime", LEFT_A_THREAD % "the module"))
        exit_(0)
    if err is not None:
        emit(("load", err[0], err[1] if err[1] != NO_RESULT else "the module did not finish loading"))
        exit_(0)
    if f is None:
        emit(("load", "runtime", "%s is not a function once the module has run" % fn))
        exit_(0)
    emit(("loaded",))
    last = len_(calls) - 1
    i = 0
    while i <= last:
        # Every call but the last (whose thread must end before its frame goes) and those whose
        # value goes back as a digest runs in a batch; those run one job each.
        if i < last and i not in by_digest:
            j = i + 1
            while j < last and j not in by_digest:
                j += 1
            i = batch(i, j)
            continue
        args = calls[i]
        t0 = clock()
        limit = limit_of(i)
        value, err = job((call, f, args), t0 + limit if limit else 0.0)
        spent.append((clock() - t0) * 1000.0)
        if err is not None and err[0] == "over":
            emit(("e", i, "resource", "CPU time limit of one input exceeded: %.0f ms of CPU time, over its own limit of %.0f ms" % (spent[-1], (limit or 0.0) * 1000.0)))
            exit_(0)
        if threads() != live:
            # Recorded before anything else: nothing of this call's is read.
            emit(("e", i, "runtime", LEFT_A_THREAD % ("its call (%s)" % fn)))
            exit_(0)
        if err is not None:
            frame = seal(("e", i, "resource" if err[0] == "resource" else "runtime", err[1][:300]))
        else:
            frame = record(i, args, value)
        if i == last:
            # The last call's frame is sealed (its value and arguments read) before the answer's
            # thread ends; a thread started on the way out (a thread-local's finalizer) is its call's.
            finish()
            if threads() != 0:
                frame = seal(("e", i, "runtime", LEFT_AT_THE_END % fn))
        send(frame)
        i += 1
    emit(("times", spent))
    emit(("done",))
    # Closed before the process ends (unmapping its memory takes a while): the worker, which
    # watches this pipe for its hang-up, has the whole run at once.
    close(fd)
    exit_(0)


# ---------------------------------------------------------------- the keeper


class Usage:
    """What the keeper measured of the candidate's code (from its start mark)."""

    def __init__(self, cpu_ms: float = 0.0, wall_ms: float = 0.0, blocked_ms: float = 0.0, limit: str | None = None) -> None:
        self.cpu_ms = cpu_ms
        self.wall_ms = wall_ms
        self.blocked_ms = blocked_ms
        self.limit = limit  # "cpu", "blocked", "wall", "precheck" when the keeper stopped it


# The descriptors each sandbox request brings the keeper, in order (candidate.py _request_sandbox).
SANDBOX_FDS = ("job", "res", "out", "status", "ctl")


def keeper(cfg: Config, sock_fd: int) -> None:
    """Fork of the zygote that serves one worker's sandboxes, one after another, for as long as
    it lives (the worker keeps two and uses them in turn, so that one forks the next answer's
    candidate while the other watches the current one). Entered once: its own session, a user
    namespace of its own (bubblewrap) or the subreaper role (no sandbox), non-dumpable. Then, per
    request on its socket (the five pipes of one sandbox): a candidate in fresh PID, mount and IPC
    namespaces (serve), watched, reaped and reported on. It never sees a job, a key or an output:
    only the worker's limits and the candidate's start mark. Never returns."""
    try:
        iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
        os.setsid()
        if cfg.mode == "bwrap":
            iso.enter_keeper_namespace()
            iso.drop_inherited()
            cfg.inherited_dropped = True
        else:
            iso.prctl(iso.PR_SET_CHILD_SUBREAPER, 1)
        # Only now: a non-dumpable process cannot write its own uid_map.
        iso.prctl(iso.PR_SET_DUMPABLE, 0)
        # The zygote's /proc, where each candidate's processes show (each candidate covers /proc
        # in a mount namespace of its own).
        procfd = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
        sock = socket.socket(fileno=sock_fd)
        cpus = os.sched_getaffinity(0)
    except BaseException:
        os._exit(114)  # the worker sees its socket close, and starts another
    since = (0, 0.0)  # (minor faults, CPU s) at the last report: a fork starts at zero
    while True:
        try:
            msg, fds = recv_control(sock, 8)
        except (EOFError, OSError, ValueError):
            os._exit(0)  # the worker has gone, or let this keeper go
        if len(fds) != len(SANDBOX_FDS):
            os._exit(116)  # not the worker's request: the worker replaces a keeper that ends
        # ("native", cpu): a Python answer's candidate installs its filters before its job, ("foreign", cpu)
        # after it; cpu, the worker's when it asked (or -1), is where it waits for the job.
        kind, wait_on = msg if type(msg) is tuple and len(msg) == 2 and type(msg[1]) is int else ("", -1)
        since = serve(cfg, dict(zip(SANDBOX_FDS, fds)), procfd, sock.fileno(), since, cpus, kind == "native", wait_on)


def serve(cfg: Config, fds: dict[str, int], procfd: int, sock_fd: int, since: tuple[int, float], cpus: set[int], python: bool = False, wait_on: int = -1) -> tuple[int, float]:
    """One sandbox: make its candidate, watch it, reap it, report on the status pipe, close every
    descriptor of the request. (faults, CPU s) of the keeper at its report, the next one's start.
    Any failure is reported and ends the keeper (the worker starts another): a keeper never goes
    on from a state it did not expect."""
    status_w = fds["status"]
    stamps = [time.monotonic(), time.process_time()]
    try:
        before: set[tuple[str, int]] = set()
        nproc = MAX_PROCS
        workdir = WORKDIR
        if cfg.mode != "bwrap":
            # Same uid as eddy (no root): RLIMIT_NPROC counts eddy's own threads and everything else of the user's.
            if not cfg.fresh_uid:
                nproc = _user_tasks(os.getuid()) + MAX_PROCS + SHARED_UID_HEADROOM
            before = iso.sysv_ids()
            import tempfile

            workdir = tempfile.mkdtemp(prefix="c", dir=cfg.temp_base)
        mark_r, mark_w = os.pipe()
        stamps += (time.monotonic(), time.process_time())
        # bubblewrap: PID 1 of new PID, mount and IPC namespaces (isolation.py clone_candidate).
        # Without: a plain fork (isolation.py fork), and a uid of its own as root.
        pid = iso.clone_candidate() if cfg.mode == "bwrap" else iso.fork()
        if pid:
            stamps += (time.monotonic(), time.process_time())
        if pid == 0:
            os.close(status_w)
            os.close(fds["ctl"])
            os.close(mark_r)
            os.close(procfd)
            os.close(sock_fd)
            uid = None
            if cfg.mode != "bwrap" and cfg.fresh_uid:
                uid = UID_BASE + os.getpid()  # unique while it lives; nothing of it outlives its verdict
                os.chown(workdir, uid, uid)
            candidate(cfg, fds, uid, nproc, workdir, mark_w, python, wait_on)
            os._exit(113)
        uid = UID_BASE + pid if cfg.mode != "bwrap" and cfg.fresh_uid else None
        for name in ("job", "res", "out"):
            os.close(fds[name])
        os.close(mark_w)
        watch = _Watch(pid, fds["ctl"], mark_r, procfd, cpus)
        status, usage = watch.run()
        os.close(fds["ctl"])
        stamps += (time.monotonic(), time.process_time())
        _clean(cfg, pid, uid)
        if cfg.mode != "bwrap":
            iso.remove_sysv(iso.sysv_ids() - before)
            landlock.remove_tree(workdir)  # whatever the candidate did to its modes
            if uid is not None and not landlock.ABI:
                landlock.sweep(uid)  # what its uid left in /tmp, /dev/shm, /var/tmp (Landlock keeps it out)
        stamps += (time.monotonic(), time.process_time())
        # This sandbox's share of the keeper's own faults and CPU time: since its last report.
        own = resource.getrusage(resource.RUSAGE_SELF)
        now = (own.ru_minflt, own.ru_utime + own.ru_stime)
        spent = (now[0] - since[0], now[1] - since[1]) + watch.spent
        _send(status_w, ("status", status, round(usage.cpu_ms, 3), round(usage.wall_ms, 3), round(usage.blocked_ms, 3), usage.limit, tuple(stamps) + watch.stamps, spent))
        os.close(status_w)
        return now
    except BaseException as e:
        try:
            _send(status_w, ("setup", "sandbox set-up failed: " + _exc(e)))
        finally:
            os._exit(114)


def _read_int(procfd: int, path: str) -> list[str]:
    try:
        fd = os.open(path, os.O_RDONLY, dir_fd=procfd)
    except OSError:
        return []
    try:
        return os.read(fd, 4096).decode("ascii", "replace").split()
    except OSError:
        return []
    finally:
        os.close(fd)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree(pid: int, procfd: int) -> list[int]:
    """The candidate and every live descendant (bounded by RLIMIT_NPROC)."""
    out, todo = [], [pid]
    while todo and len(out) < 4 * MAX_PROCS:
        p = todo.pop()
        out.append(p)
        for t in _read_int(procfd, "%d/task/%d/children" % (p, p)):
            if t.isdigit():
                todo.append(int(t))
    return out


def _sample(pid: int, procfd: int, states: bool) -> tuple[float, bool]:
    """(CPU seconds, whether a thread is runnable) of the candidate's process tree. CPU is
    cumulative: each live process's CPU-time clock (every thread it ever ran, exited ones
    included) plus what it reaped (cutime, cstime). Runnable is a thread in state R (on a CPU or
    queued for one), read from /proc only when `states` is asked for."""
    cpu = 0.0
    runnable = False
    for p in _tree(pid, procfd):
        try:
            cpu += time.clock_gettime(((~p) << 3) | 2)  # the process's CPU-time clock
        except OSError:
            continue
        st = _read_int(procfd, "%d/stat" % p)
        # Fields after the ')' of comm: cutime and cstime are fields 16 and 17 (1-based).
        try:
            rest = " ".join(st).rsplit(")", 1)[1].split()
            cpu += (int(rest[13]) + int(rest[14])) / _TICK
        except (IndexError, ValueError):
            pass
        if states and not runnable:
            runnable = _runnable(p, procfd)
    return cpu, runnable


def _runnable(p: int, procfd: int) -> bool:
    try:
        tasks = _listdir(procfd, "%d/task" % p)
    except OSError:
        return False
    for t in tasks:
        st = _read_int(procfd, "%d/task/%s/stat" % (p, t))
        try:
            if " ".join(st).rsplit(")", 1)[1].split()[0] == "R":
                return True
        except IndexError:
            pass
    return False


def _listdir(procfd: int, path: str) -> list[str]:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY, dir_fd=procfd)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


class _Watch:
    """Waits for the candidate; stops it when the worker closes the control pipe or when a limit
    the worker sent (CPU ms, blocked ms, wall ms) is passed. State lives in attributes: each step
    is a short method (a loop over many locals makes type checkers crawl)."""

    def __init__(self, pid: int, ctl: int, mark_r: int, procfd: int, cpus: set[int] | None = None) -> None:
        self.pid, self.ctl, self.mark_r, self.procfd = pid, ctl, mark_r, procfd
        try:
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None
        self.usage = Usage()
        self.born = time.monotonic()
        self.limits: tuple[float, float, float] | None = None
        self.ctl_buf = b""
        self.start: tuple[float, float] | None = None  # (cpu s, monotonic s) at the mark
        self.active: tuple[float, float] = (0.0, 0.0)  # (cpu s, monotonic s) when last seen using CPU or runnable
        self.mark_open = True
        self.ctl_open = True
        self.tick = 0.005
        self.killed = False
        self.stamps: tuple[float, ...] = ()  # the candidate's set-up stamps, sent with its start mark
        self.spent: tuple[float, ...] = ()  # the candidate's whole life: (minor faults, CPU s), for the profile
        # The candidate pins itself to one of these (isolation.py stay_on); a keeper reads them once.
        self.cpus = cpus if cpus is not None else os.sched_getaffinity(0)
        self.spread = False

    def run(self) -> tuple[int, Usage]:
        try:
            while True:
                got, st, ru = os.wait4(self.pid, os.WNOHANG)
                if got:
                    self.finish(ru)
                    return st, self.usage
                watch = ([self.ctl] if self.ctl_open else []) + ([self.mark_r] if self.mark_open else []) + ([self.pidfd] if self.pidfd is not None else [])
                ready, _, _ = select.select(watch, [], [], self.timeout())
                if self.ctl_open and self.ctl in ready:
                    self.read_control()
                if self.mark_open and self.mark_r in ready:
                    self.read_mark()
                # Only when the wait timed out: at the mark the answer has used nothing yet, and
                # once its pidfd is ready it has ended (wait4's usage is the last word, finish).
                if not self.killed and not ready:
                    self.check()
        finally:
            if self.pidfd is not None:
                os.close(self.pidfd)
            if self.mark_open:
                os.close(self.mark_r)

    def timeout(self) -> float:
        """How long to wait for the next event. Until the start mark there is no CPU time of the
        answer's to watch: the mark, the control pipe and the candidate's end (its pidfd) each
        wake the keeper, so it sleeps until the static check's wall-clock limit rather than
        polling (a warm sandbox waits a whole verdict for its job). Without a pidfd it polls."""
        if self.start is None and self.pidfd is not None:
            return max(0.0, self.born + PRECHECK_WALL_S - time.monotonic())
        return self.tick

    def finish(self, ru: resource.struct_rusage) -> None:
        self.spent = (ru.ru_minflt, ru.ru_utime + ru.ru_stime)
        if self.start is not None:
            self.usage.cpu_ms = max(self.usage.cpu_ms, (ru.ru_utime + ru.ru_stime - self.start[0]) * 1000.0)
            self.usage.wall_ms = (time.monotonic() - self.start[1]) * 1000.0

    def stop(self, why: str | None) -> None:
        if why is not None:
            self.usage.limit = why
        _kill(self.pid)
        self.killed = True

    def read_control(self) -> None:
        chunk = os.read(self.ctl, 4096)
        if not chunk:
            self.ctl_open = False
            self.stop(None)
            return
        self.ctl_buf += chunk
        if len(self.ctl_buf) >= 4 and len(self.ctl_buf) >= 4 + struct.unpack(">I", self.ctl_buf[:4])[0]:
            cpu_ms, blocked_ms, wall_ms = marshal.loads(self.ctl_buf[4:])  # from the trusted worker
            self.limits = (float(cpu_ms), float(blocked_ms), float(wall_ms))
            self.tick = min(0.025, max(0.002, self.limits[0] / 1000.0 / 100.0))

    def read_mark(self) -> None:
        data = os.read(self.mark_r, MARK_BYTES)
        self.mark_open = False
        os.close(self.mark_r)
        if len(data) == MARK_BYTES:
            self.stamps = struct.unpack(MARK_FORMAT, data)[1:]
        if len(data) >= 8:
            cpu0 = struct.unpack(">Q", data[:8])[0] / 1e9
            now = time.monotonic()
            self.start = (cpu0, now)
            self.active = (cpu0, now)

    def check(self) -> None:
        now = time.monotonic()
        if self.start is None:
            if now - self.born > PRECHECK_WALL_S:
                self.stop("precheck")
            return
        if self.limits is None:
            return
        # Sleeping or blocked is the answer's own state, never wall time minus a sample: the
        # window since it last used CPU (exited threads and reaped children included) or had a
        # thread runnable. A busy machine delays a runnable answer; it never makes it idle.
        cpu, runnable = _sample(self.pid, self.procfd, False)
        if cpu <= self.active[0]:
            _, runnable = _sample(self.pid, self.procfd, True)
        if cpu > self.active[0] or runnable:
            self.active = (max(cpu, self.active[0]), now)
        u = self.usage
        u.cpu_ms = max(u.cpu_ms, (cpu - self.start[0]) * 1000.0)
        u.wall_ms = (now - self.start[1]) * 1000.0
        u.blocked_ms = (now - self.active[1]) * 1000.0
        if not self.spread and u.cpu_ms > SPREAD_AFTER_CPU_MS:
            self.spread = True
            _spread(self.pid, self.procfd, self.cpus)
        if u.cpu_ms > self.limits[0]:
            self.stop("cpu")
        elif u.blocked_ms > self.limits[1]:
            self.stop("blocked")
        elif u.wall_ms > self.limits[2]:
            self.stop("wall")
        else:
            self.tick = min(self.tick * 1.5, 0.025)


# The candidate runs on one CPU (isolation.py stay_on), which makes the hand-offs between
# the harness's thread and each call's cheap; once it has used this much CPU time it is a
# computation rather than a string of hand-offs, and the keeper lets its threads and processes
# run on every CPU again, so that the kernel can move it off a CPU another answer is using.
SPREAD_AFTER_CPU_MS = 25.0


def _spread(pid: int, procfd: int, cpus: set[int]) -> None:
    """Every thread of the candidate's tree may run on any of `cpus` again (threads it starts
    later inherit this from the thread that starts them)."""
    for p in _tree(pid, procfd):
        try:
            tasks = _listdir(procfd, "%d/task" % p)
        except OSError:
            continue
        for t in tasks:
            try:
                os.sched_setaffinity(int(t), cpus)
            except (OSError, ValueError):
                pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _clean(cfg: Config, pid: int, uid: int | None) -> None:
    """Nothing the candidate started outlives its verdict."""
    # With namespaces the candidate was PID 1: reaped, its namespace is empty already.
    if cfg.mode == "bwrap":
        return
    if uid is not None:
        # Every process of the candidate's own uid, whatever it did to its group or parent.
        killer = os.fork()
        if killer == 0:
            try:
                os.setuid(uid)
                # One kill(-1) walks the process list under the lock fork() needs: nothing of
                # this uid can be created meanwhile, so once is enough (the zombies come here).
                os.kill(-1, signal.SIGKILL)  # never the caller itself
            except OSError:
                pass
            os._exit(0)
        os.waitpid(killer, 0)
    # Orphans come to this subreaper: kill and reap until none is left.
    for _ in range(10_000):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            with open("/proc/self/task/%d/children" % os.getpid()) as f:
                kids = [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            kids = []
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        if not kids:
            select.select([], [], [], 0.001)
