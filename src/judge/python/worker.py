"""eddy judge worker: a long-lived process that judges candidate code against oracles.

Protocol: one JSON object per line on stdin (a request with an "id" and an "op"), one JSON
object per line on stdout (the reply with the same "id"). Candidate code never runs in this
process: every candidate runs in a forked grandchild with rlimits, its own PID/mount
namespace where the kernel allows it, an unprivileged uid when started as root, a private
tmpfs (or temp dir) as working directory, and no network. This process compares outputs.

Standard library only (eddy's rule). Python >= 3.8.
"""

import ast
import builtins
import copy
import ctypes
import errno
import importlib.util
import inspect
import json
import math
import os
import random
import re
import resource
import select
import shutil
import signal
import symtable
import sys
import tempfile
import textwrap
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

NOBODY_UID = 65534
NOBODY_GID = 65534
# Caps on what a candidate can send back; beyond them the run counts as exhausting resources.
MAX_RESULT_BYTES = 32 * 1024 * 1024
MAX_CAPTURE_BYTES = 64 * 1024
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_PROCS = 64
MAX_OPEN_FILES = 64
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
ORACLE_TIMEOUT_S = 20.0
DETAIL_CHARS = 300

try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - no libc: isolation degrades to rlimits only
    _libc = None


def _sys(name, *args):
    """Call a libc function; raise OSError with errno on failure."""
    if _libc is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    fn = getattr(_libc, name)
    if fn(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


# ---------------------------------------------------------------- isolation set-up

ISO = {"netns": False, "pidns": False, "mountns": False, "uid": False, "socket_hook": False, "notes": []}
TMP_BASE = None


def setup_isolation():
    """Decide, once per worker, which protections are in force; record the level."""
    global TMP_BASE
    notes = ISO["notes"]
    is_root = os.geteuid() == 0
    try:
        _sys("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except OSError as e:
        notes.append("cannot become a child subreaper (%s)" % e.strerror)
    # EDDY_JUDGE_NO_NAMESPACES=1 forces the fallback path (for tests and for comparison).
    no_ns = os.environ.get("EDDY_JUDGE_NO_NAMESPACES") == "1"
    if no_ns:
        notes.append("namespaces disabled by EDDY_JUDGE_NO_NAMESPACES")
    # The worker itself needs no network: moving it into an empty network namespace once
    # makes every candidate it forks network-less at no per-candidate cost.
    try:
        if no_ns:
            raise OSError(errno.EPERM, "disabled")
        if not is_root:
            raise OSError(errno.EPERM, "not root")
        _sys("unshare", CLONE_NEWNET)
        ISO["netns"] = True
    except OSError as e:
        notes.append("no network namespace (%s): socket creation refused by an audit hook" % e.strerror)
        ISO["socket_hook"] = True
    ISO["uid"] = is_root
    if not is_root:
        notes.append("not root: candidates keep the worker's uid (RLIMIT_NPROC binds it)")
    # Probe the per-candidate namespaces in a throw-away child.
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _sys("unshare", CLONE_NEWPID)
        except OSError:
            code |= 1
        try:
            _sys("unshare", CLONE_NEWNS)
            _sys("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)
            _sys("mount", b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m")
        except OSError:
            code |= 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
    if no_ns:
        code = 3
    ISO["pidns"] = code >= 0 and not (code & 1)
    ISO["mountns"] = code >= 0 and not (code & 2)
    if not ISO["pidns"]:
        notes.append("no PID namespace: stray processes are killed by process group only")
    if not ISO["mountns"]:
        notes.append("no mount namespace: candidates work in a plain temp dir and can write to shared /tmp")
        TMP_BASE = tempfile.mkdtemp(prefix="eddy-judge-")
        os.chmod(TMP_BASE, 0o711)


# Modules a candidate commonly imports. When the unprivileged user cannot read Python's own
# library (e.g. a pyenv install under /root), the worker imports these while still privileged
# so the forked candidate finds them already loaded.
PRELOAD = (
    "abc array base64 binascii bisect calendar cmath collections collections.abc contextlib copy "
    "csv dataclasses datetime decimal difflib enum fractions functools hashlib heapq io itertools "
    "json keyword math numbers operator pprint queue random re secrets signal socket statistics "
    "string struct subprocess textwrap threading time typing unicodedata weakref zlib ctypes encodings.idna"
).split()


def _world_readable_stdlib():
    """True when every directory down to the stdlib lets other users through (o+x)."""
    path = os.path.dirname(os.__file__)
    while True:
        try:
            if not os.stat(path).st_mode & 0o001:
                return False
        except OSError:
            return False
        up = os.path.dirname(path)
        if up == path:
            return True
        path = up


def preload_stdlib():
    if not ISO["uid"] or _world_readable_stdlib():
        return
    ISO["notes"].append("Python's library is not readable by the unprivileged user: common modules are preloaded, others cannot be imported")
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def isolation_report():
    """The IsolationReport shape (src/judge/types.ts)."""
    parts = []
    if ISO["netns"]:
        parts.append("netns")
    if ISO["pidns"]:
        parts.append("pidns")
    if ISO["mountns"]:
        parts.append("mountns")
    if ISO["uid"]:
        parts.append("uid")
    parts.append("rlimits")
    if ISO["socket_hook"]:
        parts.append("socket-block")
    rl = ["cpu", "as", "nproc", "fsize", "nofile", "core"]
    return {
        "level": "+".join(parts),
        "network": "namespace" if ISO["netns"] else "socket-blocked",
        "pidNamespace": ISO["pidns"],
        "unprivilegedUser": ISO["uid"],
        "rlimits": rl,
        "notes": list(ISO["notes"]),
    }


# ---------------------------------------------------------------- oracles


class OracleError(Exception):
    """The oracle (trusted code) failed: a judge_error, never the model's fault."""


class _OracleTimeout(BaseException):
    pass


_oracles = {}
_prepared = {}


def load_oracle(path, digest):
    key = (path, digest)
    mod = _oracles.get(key)
    if mod is not None:
        return mod
    if not os.path.isfile(path):
        raise OracleError("oracle file not found: %s" % path)
    name = "eddy_oracle_%d" % len(_oracles)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        with _guard("loading %s" % os.path.basename(path)):
            spec.loader.exec_module(mod)
    except OracleError:
        raise
    except BaseException as e:
        raise OracleError("oracle %s failed to load: %s" % (os.path.basename(path), _exc_line(e)))
    for need in ("solution", "tests", "inputs"):
        if not callable(getattr(mod, need, None)):
            raise OracleError("oracle %s defines no %s()" % (os.path.basename(path), need))
    _oracles[key] = mod
    return mod


class _guard:
    """Run trusted oracle code with a wall-clock limit; any failure becomes an OracleError."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        def on_alarm(signum, frame):
            raise _OracleTimeout()

        self.old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, ORACLE_TIMEOUT_S)

    def __exit__(self, typ, value, tb):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        if typ is None:
            return False
        if typ is _OracleTimeout:
            raise OracleError("oracle timed out (%ss) while %s" % (ORACLE_TIMEOUT_S, self.what))
        if issubclass(typ, OracleError):
            return False
        raise OracleError("oracle raised while %s: %s" % (self.what, _exc_line(value)))


def prepare(req):
    """Fixed tests and random inputs with expected outputs for one instance (cached)."""
    key = (req["oracle"], req["oracleHash"], json.dumps(req["bindings"], sort_keys=True), req["seed"], req["randomInputs"], req.get("comparator"))
    hit = _prepared.get(key)
    if hit is not None:
        return hit
    mod = load_oracle(req["oracle"], req["oracleHash"])
    kw = req["bindings"]
    fixed = []
    with _guard("listing fixed tests"):
        for item in mod.tests(**copy.deepcopy(kw)):
            args, expected = item
            fixed.append((tuple(args), expected))
    rnd = []
    rng = random.Random(int(req["seed"]))
    with _guard("generating random inputs"):
        for _ in range(int(req["randomInputs"])):
            args = tuple(mod.inputs(rng, **copy.deepcopy(kw)))
            rnd.append(args)
    expected = []
    with _guard("running the model solution on random inputs"):
        for args in rnd:
            expected.append(mod.solution(*copy.deepcopy(args), **copy.deepcopy(kw)))
    cmp = make_comparator(mod, req.get("comparator") or "ordered", kw)
    out = (fixed, list(zip(rnd, expected)), cmp)
    if len(_prepared) > 512:
        _prepared.clear()
    _prepared[key] = out
    return out


def _sorted_any(xs):
    try:
        return sorted(xs)
    except TypeError:
        return sorted(xs, key=repr)


def _float_eq(a, b, tol):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_float_eq(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_float_eq(a[k], b[k], tol) for k in a)
    return a == b


def make_comparator(mod, name, kw):
    """expected, actual -> bool; the oracle's compare() wins over the YAML comparator."""
    custom = getattr(mod, "compare", None)
    if callable(custom):
        return lambda e, a: bool(custom(e, a, **copy.deepcopy(kw)))
    if name == "ordered":
        return lambda e, a: type(a) is not Opaque and e == a
    if name == "unordered":

        def unordered(e, a):
            if not isinstance(a, (list, tuple, set, frozenset)) or not isinstance(e, (list, tuple, set, frozenset)):
                return e == a
            return len(e) == len(a) and _sorted_any(e) == _sorted_any(a)

        return unordered
    if name == "set":

        def as_set(e, a):
            if not isinstance(a, (list, tuple, set, frozenset)) or not isinstance(e, (list, tuple, set, frozenset)):
                return e == a
            # A question whose answer is a set is not answered by a list (duplicates and all).
            if isinstance(e, (set, frozenset)) and not isinstance(a, (set, frozenset)):
                return False
            try:
                return set(e) == set(a)
            except TypeError:
                return set(map(repr, e)) == set(map(repr, a))

        return as_set
    if name.startswith("float:"):
        tol = float(name.split(":", 1)[1])
        return lambda e, a: _float_eq(e, a, tol)
    raise OracleError("unknown comparator %r" % name)


# ---------------------------------------------------------------- static checks


DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)\n]*)\)?", re.M)
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__", "__annotations__"}


def _arity_ok(args, arity):
    pos = list(getattr(args, "posonlyargs", [])) + list(args.args)
    required = len(pos) - len(args.defaults)
    most = math.inf if args.vararg else len(pos)
    kw_required = [k for k, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return required <= arity <= most and not kw_required, len(pos)


def precheck(code, fn, arity):
    """The categories decided without running anything, in SPEC order; None when it may run."""
    try:
        tree = ast.parse(code)
        syntax = None
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
        tree = None
        syntax = e
    if tree is None:
        defs = DEF_RE.findall(code)
        if not defs:
            return ("no_function", "no function definition found")
        names = [d[0] for d in defs]
        if fn not in names:
            return ("wrong_function_name", "expected a function named %s; found %s" % (fn, ", ".join(names[:5])))
        sig = next(d[1] for d in defs if d[0] == fn)
        try:
            fake = ast.parse("def f(%s): pass" % sig).body[0]
            ok, n = _arity_ok(fake.args, arity)
            if not ok:
                return ("wrong_arg_count", "%s takes %d argument(s); expected %d" % (fn, n, arity))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        line = getattr(syntax, "lineno", None)
        msg = getattr(syntax, "msg", None) or str(syntax)
        return ("syntax_error", ("line %s: %s" % (line, msg)) if line else msg)
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            top[node.name] = node
    any_def = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in ast.walk(tree))
    if not any_def:
        return ("no_function", "no function definition found")
    if fn not in top:
        return ("wrong_function_name", "expected a function named %s; found %s" % (fn, ", ".join(list(top)[:5]) or "no top-level function"))
    ok, n = _arity_ok(top[fn].args, arity)
    if not ok:
        return ("wrong_arg_count", "%s takes %d argument(s); expected %d" % (fn, n, arity))
    try:
        compile(tree, "candidate.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        line = getattr(e, "lineno", None)
        return ("syntax_error", ("line %s: %s" % (line, getattr(e, "msg", e))) if line else str(e))
    unbound = unbound_names(code)
    if unbound:
        return ("static_error", "undefined name%s: %s" % ("s" if len(unbound) > 1 else "", ", ".join(unbound[:5])))
    return None


def unbound_names(code):
    """Names read somewhere that nothing binds: not the module, not a builtin, not a closure."""
    try:
        top = symtable.symtable(code, "candidate.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if "import *" in code or "import*" in code:
        return []  # a star import binds names we cannot see
    bound = set(MODULE_NAMES) | set(dir(builtins))
    tables = []
    stack = [top]
    while stack:
        t = stack.pop()
        tables.append(t)
        stack.extend(t.get_children())
    for t in tables:
        for s in t.get_symbols():
            if t is top and (s.is_assigned() or s.is_imported() or s.is_namespace()):
                bound.add(s.get_name())
            elif s.is_declared_global() and (s.is_assigned() or s.is_imported() or s.is_namespace()):
                bound.add(s.get_name())
    missing = []
    for t in tables:
        for s in t.get_symbols():
            if not s.is_referenced():
                continue
            name = s.get_name()
            if name in bound or name in missing:
                continue
            if t is top or t.get_type() == "class" or s.is_global():
                if t is not top and (s.is_local() and not s.is_global()):
                    continue
                if t.get_type() == "class" and (s.is_assigned() or s.is_imported() or s.is_namespace()):
                    continue
                if t.get_type() == "class" and s.is_free():
                    continue
                missing.append(name)
    return missing


# ---------------------------------------------------------------- value transport


class Opaque:
    """A candidate value that is not plain data: shown by its repr, equal to nothing."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


def encode(v, depth=0, budget=None):
    """Plain data -> JSON with tags. Runs in the candidate child, so it must not trust v."""
    if budget is None:
        budget = [2_000_000]
    budget[0] -= 1
    if budget[0] < 0 or depth > 200:
        raise ValueError("output too large or too deep")
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return v if -(2**53) < v < 2**53 else {"i": str(v)}
    if t is float:
        return v if math.isfinite(v) else {"f": repr(v)}
    if t is list:
        return [encode(x, depth + 1, budget) for x in v]
    if t is tuple:
        return {"t": [encode(x, depth + 1, budget) for x in v]}
    if t is set or t is frozenset:
        return {"s" if t is set else "fs": [encode(x, depth + 1, budget) for x in v]}
    if t is dict:
        return {"d": [[encode(k, depth + 1, budget), encode(x, depth + 1, budget)] for k, x in v.items()]}
    if t is bytes:
        return {"b": v.hex()}
    if t is complex:
        return {"c": [v.real, v.imag]}
    try:
        text = repr(v)[:DETAIL_CHARS]
    except BaseException:
        text = "<%s object>" % t.__name__
    return {"o": text}


def decode(x):
    """Inverse of encode, in the worker: builds only plain values (never unpickles anything)."""
    if isinstance(x, list):
        return [decode(e) for e in x]
    if not isinstance(x, dict):
        return x
    (tag, val), = x.items()
    if tag == "i":
        return int(val)
    if tag == "f":
        return float(val)
    if tag == "t":
        return tuple(decode(e) for e in val)
    if tag in ("s", "fs"):
        items = [decode(e) for e in val]
        try:
            return set(items) if tag == "s" else frozenset(items)
        except TypeError:
            return Opaque("{%s}" % ", ".join(map(repr, items)))
    if tag == "d":
        try:
            return {decode(k): decode(e) for k, e in val}
        except TypeError:
            return Opaque("{...}")
    if tag == "b":
        return bytes.fromhex(val)
    if tag == "c":
        return complex(val[0], val[1])
    return Opaque(str(val))


def short(v):
    try:
        text = repr(v)
    except BaseException:
        text = "<unprintable>"
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def _exc_line(e):
    name = type(e).__name__
    msg = str(e)
    return (name + ": " + msg if msg else name)[:DETAIL_CHARS]


# ---------------------------------------------------------------- the sandbox


RESOURCE_ERRNOS = {errno.EFBIG, errno.EAGAIN, errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.ENOMEM, errno.EDQUOT}


def _kind(e):
    # SystemError ("error return without exception set") is how CPython 3.11 reports an
    # allocation that failed deep inside C code: in practice, recursion with the limit lifted
    # running into RLIMIT_AS. Candidate code has no other ordinary way to raise it.
    if isinstance(e, (MemoryError, RecursionError, SystemError)):
        return "resource"
    if isinstance(e, OSError) and e.errno in RESOURCE_ERRNOS:
        return "resource"
    return "runtime"


def _vm_bytes():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 64 * 1024 * 1024


def _send(fd, obj):
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _candidate(code, fn, calls, workdir, res_w, out_w, time_ms, memory_mb):
    """Grandchild: contain itself, run the candidate, stream one result line per call. Never returns."""
    try:
        try:
            _sys("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        keep = sorted({0, 1, 2, res_w})
        prev = 3
        for fd in keep:
            if fd >= prev:
                os.closerange(prev, fd)
                prev = fd + 1
        os.closerange(prev, 65536)
        sys.stdin = open(os.devnull)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        os.chdir(workdir)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        cpu = max(1, int(math.ceil(time_ms / 1000.0)) + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        limit = _vm_bytes() + int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
        resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if ISO["uid"]:
            resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCS, MAX_PROCS))
            os.setgroups([])
            os.setgid(NOBODY_GID)
            os.setuid(NOBODY_UID)
        os.environ.clear()
        os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8"})
        tempfile.tempdir = workdir
        # Trusted state the candidate has no business seeing.
        _oracles.clear()
        _prepared.clear()
        for name in [m for m in sys.modules if m.startswith("eddy_oracle_")]:
            del sys.modules[name]
        if ISO["socket_hook"]:

            def no_sockets(event, args):
                if event in ("socket.__new__", "socket.socket"):
                    raise PermissionError(errno.EACCES, "network access is disabled in eddy's judge")

            sys.addaudithook(no_sockets)
    except BaseException as e:
        try:
            _send(res_w, {"setup": _exc_line(e)})
        finally:
            os._exit(112)
    me = os.getpid()
    try:
        ns = {"__name__": "candidate", "__file__": "candidate.py", "__doc__": None, "__builtins__": builtins}
        # From here on the candidate shares this process and can write to the result channel:
        # the worker trusts no harness-failure message ("setup", "crash") that comes after this.
        _send(res_w, {"ready": True})
        try:
            exec(compile(code, "candidate.py", "exec"), ns)
        except BaseException as e:
            if os.getpid() != me:
                os._exit(0)
            _send(res_w, {"load": _exc_line(e), "kind": _kind(e)})
            os._exit(0)
        if os.getpid() != me:
            os._exit(0)
        _send(res_w, {"loaded": True})
        f = ns.get(fn)
        if not callable(f):
            _send(res_w, {"load": "%s is not a function once the module has run" % fn, "kind": "runtime"})
            os._exit(0)
        for i, args in enumerate(calls):
            # Snapshot the arguments, so that the worker can tell whether the call changed them.
            try:
                before = encode(args)
            except BaseException:
                before = None
            try:
                v = f(*args)
            except BaseException as e:
                # Candidate code that forked must not report twice: only the harness process speaks.
                if os.getpid() != me:
                    os._exit(0)
                _send(res_w, {"i": i, "err": _exc_line(e), "kind": _kind(e)})
                continue
            if os.getpid() != me:
                os._exit(0)
            try:
                enc = encode(v)
                changed = before is not None and encode(args) != before
            except BaseException as e:
                _send(res_w, {"i": i, "err": "result cannot be returned: " + _exc_line(e), "kind": _kind(e)})
                continue
            _send(res_w, {"i": i, "v": enc, "changed": True} if changed else {"i": i, "v": enc})
        _send(res_w, {"done": True})
    except BaseException as e:
        try:
            _send(res_w, {"crash": _exc_line(e)})
        except BaseException:
            pass
    os._exit(0)


def _keeper(code, fn, calls, workdir, res_w, out_w, time_ms, memory_mb, res_r, out_r):
    """Child: new session and namespaces, then fork the candidate and wait for it. Never returns."""
    try:
        os.close(res_r)
        os.close(out_r)
        os.setsid()
        try:
            _sys("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except OSError:
            pass
        flags = (CLONE_NEWPID if ISO["pidns"] else 0) | (CLONE_NEWNS if ISO["mountns"] else 0)
        if flags:
            _sys("unshare", flags)
        if ISO["mountns"]:
            # Fresh, size-capped tmpfs over every shared scratch place: what the candidate
            # writes there vanishes with its mount namespace and never reaches the host.
            _sys("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)
            for place in SCRATCH_DIRS:
                if os.path.isdir(place):
                    opts = "size=%d,mode=1777" % (2 * MAX_FILE_BYTES)
                    _sys("mount", b"tmpfs", place.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode())
            workdir = "/tmp/work"
            os.mkdir(workdir, 0o700)
            if ISO["uid"]:
                os.chown(workdir, NOBODY_UID, NOBODY_GID)
        pid = os.fork()
        if pid == 0:
            _candidate(code, fn, calls, workdir, res_w, out_w, time_ms, memory_mb)
        _send(res_w, {"pid": pid})
        os.close(res_w)
        os.close(out_w)
        # Wait without reaping: the candidate's pid stays reserved until the worker reaps it,
        # so the worker can always kill it by pid safely.
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        if info.si_code == os.CLD_EXITED:
            os._exit(info.si_status & 0x7F)
        os._exit(128 + (info.si_status & 0x7F))
    except BaseException as e:
        try:
            _send(res_w, {"setup": "sandbox set-up failed: " + _exc_line(e)})
        finally:
            os._exit(113)


def sandbox_run(code, fn, calls, time_ms, memory_mb):
    """Run the candidate on every call; returns (messages, timed_out, exit_desc, captured_output)."""
    workdir = None
    if not ISO["mountns"]:
        workdir = tempfile.mkdtemp(prefix="c", dir=TMP_BASE)
        if ISO["uid"]:
            os.chown(workdir, NOBODY_UID, NOBODY_GID)
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            _keeper(code, fn, calls, workdir, res_w, out_w, time_ms, memory_mb, res_r, out_r)
        finally:
            os._exit(114)
    os.close(res_w)
    os.close(out_w)
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    deadline = time.monotonic() + time_ms / 1000.0
    buf = b""
    msgs = []
    captured = bytearray()
    total = 0
    timed_out = False
    too_large = False
    done = False
    cand = None
    keeper_status = None
    open_fds = [res_r, out_r]
    try:
        while not done:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            watch = open_fds + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(watch, [], [], min(left, 0.05 if pidfd is None else left))
            if pidfd is None and keeper_status is None:
                got, st = os.waitpid(pid, os.WNOHANG)
                if got:
                    keeper_status = st
            for fd in ready:
                if fd == pidfd:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    open_fds.remove(fd)
                    continue
                if fd == out_r:
                    if len(captured) < MAX_CAPTURE_BYTES:
                        captured += chunk[: MAX_CAPTURE_BYTES - len(captured)]
                    continue
                total += len(chunk)
                if total > MAX_RESULT_BYTES:
                    too_large = True
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    m = _parse(line)
                    if "pid" in m:
                        cand = _candidate_pid(m["pid"], pid, cand)
                    else:
                        msgs.append(m)
                        if m.get("done"):
                            done = True
            if too_large:
                break
            keeper_gone = (pidfd is not None and pidfd in ready) or keeper_status is not None
            if keeper_gone or not open_fds:
                # Drain whatever the candidate wrote before it went.
                while res_r in open_fds:
                    r, _, _ = select.select([res_r], [], [], 0)
                    if not r:
                        break
                    chunk = os.read(res_r, 65536)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > MAX_RESULT_BYTES:
                        too_large = True
                        break
                for line in buf.split(b"\n"):
                    if line.strip():
                        m = _parse(line)
                        if "pid" in m:
                            cand = _candidate_pid(m["pid"], pid, cand)
                        else:
                            msgs.append(m)
                buf = b""
                break
    finally:
        # Kill everything the run may have left: the candidate (init of its PID namespace, so
        # the kernel kills all its descendants), then the keeper's process group.
        if cand is not None:
            _kill(cand)
        _killpg(pid)
        keeper_status = _reap(pid, keeper_status)
        cand_status = _reap(cand, None) if cand is not None else None
        _reap_strays()
        for fd in (res_r, out_r, pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    status = cand_status if cand_status is not None else keeper_status
    return msgs, timed_out, too_large, status, bytes(captured)


def _candidate_pid(claimed, keeper, known):
    """The candidate's pid as the keeper reports it. The candidate shares the result channel and
    could claim any pid (the worker SIGKILLs it afterwards), so only the keeper's child counts."""
    if known is not None:
        return known
    try:
        with open("/proc/%d/stat" % claimed) as f:
            stat = f.read()
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None
    # Once the keeper has gone, its child is re-parented to this worker (a child subreaper).
    return claimed if ppid in (keeper, os.getpid()) else None


def _parse(line):
    """A result line; anything malformed means the candidate tampered with the channel."""
    try:
        m = json.loads(line)
        if isinstance(m, dict) and (not isinstance(m.get("i"), int) or "v" in m or "err" in m) and (
            "pid" not in m or isinstance(m["pid"], int)):
            return m
    except ValueError:
        pass
    return {"load": "the candidate wrote garbage to the judge's result channel", "kind": "runtime"}


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(pid, known):
    if known is not None:
        return known
    for _ in range(200):
        try:
            got, st = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if got:
            return st
        time.sleep(0.005)
    return None


def _reap_strays():
    """Without a PID namespace, orphans of the candidate are re-parented here: kill and reap them."""
    try:
        with open("/proc/self/task/%d/children" % os.getpid()) as f:
            kids = [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        kids = []
    for k in kids:
        _kill(k)
    while True:
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not got:
            if not kids:
                return
            time.sleep(0.005)
            kids = []


def _describe_status(status):
    if status is None:
        return None, "runtime"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
    elif os.WEXITSTATUS(status) >= 128:  # the keeper mirrors a signal as 128 + n
        sig = os.WEXITSTATUS(status) - 128
    else:
        return "exited with status %d" % os.WEXITSTATUS(status), "runtime"
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
    kind = "resource" if sig in (signal.SIGXCPU, signal.SIGXFSZ) else "runtime"
    return "killed by %s" % name, kind


def call_text(fn, args):
    text = fn + "(" + ", ".join(short(a) for a in args) + ")"
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def where(i, n_fixed):
    if i is None:
        return "while loading the module"
    if i < n_fixed:
        return "on fixed test %d" % (i + 1)
    return "on random input %d" % (i - n_fixed + 1)


def judge(req):
    """One verdict: (category, detail)."""
    code = req.get("code")
    fn = req["function"]
    if code is None or not code.strip():
        return "no_function", "no code could be extracted from the response"
    pre = precheck(code, fn, int(req["arity"]))
    if pre is not None:
        return pre
    fixed, rnd, cmp = prepare(req)
    calls = [a for a, _ in fixed] + [a for a, _ in rnd]
    n_fixed = len(fixed)
    # The forked candidate inherits this process's memory: keep no expected outputs in the
    # frames above it (the prepared cache is emptied in the child), so it cannot look them up.
    del fixed, rnd, cmp
    budget = req.get("budget") or {}
    msgs, timed_out, too_large, status, captured = sandbox_run(
        code, fn, calls, int(budget.get("timeMs", 2000)), int(budget.get("memoryMb", 256))
    )
    fixed, rnd, cmp = prepare(req)
    results = {}
    load = None
    finished = False
    loaded = False
    ready = False
    for m in msgs:
        if "setup" in m or "crash" in m:
            if not ready:
                raise OracleError(("sandbox: " + m["setup"]) if "setup" in m else ("harness crashed: " + m["crash"]))
            # Once candidate code runs, such a line is the candidate's doing (a forged message, a
            # closed channel): its failure, never a judge_error it could hide behind.
            if load is None:
                load = {"load": "the candidate broke the judge's result channel: " + str(m.get("setup", m.get("crash")))[:DETAIL_CHARS], "kind": "runtime"}
            continue
        if m.get("ready"):
            ready = True
        elif "i" in m:
            results[m["i"]] = m
        elif "load" in m:
            load = m
        elif m.get("done"):
            finished = True
        elif m.get("loaded"):
            loaded = True
    running = len(results) if loaded else None
    if timed_out:
        at = where(running if running is not None and running < len(calls) else None, n_fixed)
        if finished:
            at = "after the last call"
        return "resource_exhaustion", "time limit of %d ms exceeded %s" % (int(budget.get("timeMs", 2000)), at)
    if too_large:
        return "resource_exhaustion", "output larger than %d MB" % (MAX_RESULT_BYTES // (1024 * 1024))
    errs = []
    if load is not None:
        errs.append((None, load["load"], load["kind"]))
    for i in sorted(results):
        r = results[i]
        if "err" in r:
            errs.append((i, r["err"], r["kind"]))
    if load is None and not finished:
        desc, kind = _describe_status(status)
        running_at = len(results) if loaded else None
        tail = captured.decode("utf-8", "replace").strip().splitlines()[-1:] if captured else []
        errs.append((running_at, (desc or "died") + ("; " + tail[0][:120] if tail else ""), kind))
    for kind in ("resource", "runtime"):
        for i, text, k in errs:
            if k == kind:
                return ("resource_exhaustion" if kind == "resource" else "runtime_error"), "%s %s" % (text, where(i, n_fixed))
    for i in range(len(calls)):
        if "v" not in results.get(i, {}):
            return "runtime_error", "no result came back %s" % where(i, n_fixed)
    # An oracle whose question forbids changing the arguments says so with KEEP_ARGUMENTS = True.
    keep = bool(getattr(load_oracle(req["oracle"], req["oracleHash"]), "KEEP_ARGUMENTS", False))
    changed = "modified its argument, which the question forbids"
    for i, (args, expected) in enumerate(fixed):
        actual = _safe_decode(results[i]["v"])
        if not _safe_cmp(cmp, expected, actual):
            return "assertion_error", "fixed test %d: %s expected %s, got %s" % (i + 1, call_text(fn, args), short(expected), short(actual))
        if keep and results[i].get("changed"):
            return "assertion_error", "fixed test %d: %s %s" % (i + 1, call_text(fn, args), changed)
    for j, (args, expected) in enumerate(rnd):
        actual = _safe_decode(results[n_fixed + j]["v"])
        if not _safe_cmp(cmp, expected, actual):
            return "fuzzing_failure", "random input %d: %s: model solution gives %s, candidate gives %s" % (
                j + 1, call_text(fn, args), short(expected), short(actual))
        if keep and results[n_fixed + j].get("changed"):
            return "fuzzing_failure", "random input %d: %s %s" % (j + 1, call_text(fn, args), changed)
    return "passed", "%d fixed tests and %d random inputs agree" % (len(fixed), len(rnd))


def _safe_decode(x):
    try:
        return decode(x)
    except Exception:
        return Opaque("<malformed result>")


def _safe_cmp(cmp, expected, actual):
    try:
        return bool(cmp(expected, actual))
    except Exception:
        return False


# ---------------------------------------------------------------- rendering reference answers


def answer_source(req):
    """solution() or a mutant_*() rendered as an answer defining the required function."""
    mod = load_oracle(req["oracle"], req["oracleHash"])
    which = req.get("which") or "solution"
    ref = getattr(mod, which, None)
    if not callable(ref) or not (which == "solution" or which.startswith("mutant_")):
        raise OracleError("oracle %s has no %s()" % (os.path.basename(req["oracle"]), which))
    src = textwrap.dedent(inspect.getsource(ref))
    params = [
        p.name
        for p in inspect.signature(ref).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    arity = int(req["arity"])
    args = params[:arity] + ["arg%d" % k for k in range(len(params), arity)]
    kw = ", ".join("%s=%r" % (k, v) for k, v in req["bindings"].items())
    call = ", ".join(args + ([kw] if kw else []))
    return "%s\n\n_ref = %s\n\n\ndef %s(%s):\n    return _ref(%s)\n" % (src.rstrip(), which, req["function"], ", ".join(args), call)


def mutants(req):
    mod = load_oracle(req["oracle"], req["oracleHash"])
    found = []
    for name, value in vars(mod).items():
        if name.startswith("mutant_") and callable(value):
            try:
                line = inspect.getsourcelines(value)[1]
            except (OSError, TypeError):
                line = 0
            found.append((line, name))
    return [n for _, n in sorted(found)]


# ---------------------------------------------------------------- main loop


def handle(req):
    op = req.get("op")
    if op == "hello":
        return {"isolation": isolation_report(), "python": sys.version.split()[0]}
    if op == "judge":
        t0 = time.monotonic()
        category, detail = judge(req)
        return {"category": category, "detail": detail, "ms": (time.monotonic() - t0) * 1000.0}
    if op == "source":
        return {"source": answer_source(req)}
    if op == "mutants":
        return {"mutants": mutants(req)}
    raise OracleError("unknown op %r" % op)


def main():
    # The protocol gets a private copy of stdout; fd 1 becomes stderr so that a print() in an
    # oracle cannot corrupt the reply stream.
    proto = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto, "w", encoding="utf-8")
    setup_isolation()
    preload_stdlib()
    inp = sys.stdin.buffer
    try:
        while True:
            line = inp.readline()
            if not line:
                break
            if not line.strip():
                continue
            rid = None
            try:
                req = json.loads(line)
                rid = req.get("id")
                reply = handle(req)
                reply["id"] = rid
            except OracleError as e:
                reply = {"id": rid, "error": str(e)[:1000]}
            except Exception as e:  # a harness bug: report it as a judge_error, keep serving
                reply = {"id": rid, "error": "judge worker: " + _exc_line(e)}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        if TMP_BASE is not None:
            shutil.rmtree(TMP_BASE, ignore_errors=True)


if __name__ == "__main__":
    main()
