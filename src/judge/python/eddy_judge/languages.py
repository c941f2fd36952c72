"""Answers in languages other than Python: each runs under a small harness of its own language,
in the same sandbox as a Python candidate, behind a trusted relay.

The candidate's process (sandbox.py) stays the harness's Python: for another language it forks the
language's runtime (bound read-only into bubblewrap's world, see world.py) running the harness,
hands it the calls as type-tagged JSON on stdin, and reads its answers as JSON lines on fd 3. Only
the relay holds the job's key: it turns each line into the same authenticated frames a Python run
writes, so the worker judges both alike. The runtime shares its process with the answer, so a
line on fd 3 is never trusted beyond what the answer could have returned itself; values are
decoded (and compared) on the worker's side (wire.py). Loaded by the zygote: standard library only.
"""

from __future__ import annotations

import errno
import json
import os
import select
import signal
import struct
import time
from typing import Any, Callable, NamedTuple, NoReturn


class Runtime(NamedTuple):
    """(A NamedTuple: `dataclasses` would load `inspect` into the zygote, issue #36.)"""

    name: str
    binary: str  # the runtime's command, found on PATH by the worker
    ext: str
    # Address space the runtime needs on top of the answer's memory budget (V8 reserves a lot).
    vm_mb: int
    # Read-only paths the runtime reads besides /usr/lib (bound when present).
    binds: tuple[str, ...]
    # Arguments before the harness file; {mb} is the answer's memory budget.
    flags: tuple[str, ...] = ()
    package: str = ""  # the Debian package that provides it


RUNTIMES: dict[str, Runtime] = {
    "javascript": Runtime("javascript", "node", "js", 1024, (), ("--max-old-space-size={mb}", "--stack-size=2000"), "nodejs"),
    "ruby": Runtime("ruby", "ruby", "rb", 256, ("/usr/share/rubygems-integration", "/var/lib/gems"), ("--disable-gems",), "ruby"),
    # -n: no php.ini (nothing of the host's configuration); PHP's own memory limit reports first.
    "php": Runtime("php", "php", "php", 128, (), ("-n", "-d", "memory_limit={mb}M", "-d", "display_errors=stderr", "-d", "log_errors=0"), "php-cli"),
}
RESULT_FD = 3
TAIL_BYTES = 4096
MAX_LINE_BYTES = 32 * 1024 * 1024
# How a runtime says it ran out of memory or stack when it cannot say so to the harness.
_RESOURCE_WORDS = ("Allowed memory size", "heap out of memory", "Reached heap limit", "NoMemoryError", "failed to allocate memory", "stack level too deep", "Maximum call stack")
_PRE = {"syntax": "syntax_error", "missing": "no_function", "arity": "wrong_arg_count"}


def runtime_path(binary: str) -> str | None:
    """The runtime's real path on this machine, or None. EDDY_RUNTIME_PATH (folders, colon-separated)
    replaces where runtimes are looked for (tests use it to show a missing one)."""
    for d in os.environ.get("EDDY_RUNTIME_PATH", "/usr/local/bin:/usr/bin:/bin").split(":"):
        p = os.path.join(d, binary)
        if os.access(p, os.X_OK):
            return os.path.realpath(p)
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _resource(text: str, status: int) -> bool:
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGABRT, signal.SIGSEGV, signal.SIGXCPU, signal.SIGXFSZ):
        return True
    return any(w in text for w in _RESOURCE_WORDS)


def _ended(status: int, tail: str) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        how = "the answer's runtime was killed by %s" % (signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig)
    else:
        how = "the answer's runtime exited with status %d" % os.WEXITSTATUS(status)
    last = [ln for ln in tail.strip().splitlines() if ln.strip()][-1:]
    return (how + ("; " + last[0][:160] if last else ""))[:300]


class _Relay:
    """Reads the harness's lines and writes the authenticated frames; `emit` is the sandbox's."""

    def __init__(self, emit: Callable[[Any], None]) -> None:
        self.emit = emit
        self.loaded = False
        self.ready = False
        self.next = 0
        self.done = False
        self.bad: str | None = None

    def line(self, raw: bytes) -> None:
        # The answer shares the runtime's process and can write its own lines: nothing in one
        # may stop the relay (a deep array, a huge number): a line it cannot read is the answer's.
        try:
            self._line(raw)
        except Exception as e:
            self.bad = "an unreadable line (%s)" % type(e).__name__

    def _line(self, raw: bytes) -> None:
        try:
            m = json.loads(raw)
        except ValueError:
            self.bad = "a line that is not JSON"
            return
        if not isinstance(m, dict):
            self.bad = "a line that is not an object"
            return
        if "tamper" in m:
            # The harness found a Proxy, a getter or a redefined hook among the values (or the
            # answer wrote this line itself): either way the answer's, reported as tampering.
            self.emit(("tamper", "foreign: " + str(m.get("tamper"))[:200]))
            self.ready = self.done = True
            return
        if not self.ready:
            self.on_load(m)
            return
        if m.get("i") == self.next and self.loaded and not self.done:
            if "err" in m:
                kind = "resource" if m.get("err") == "resource" else "runtime"
                self.emit(("e", self.next, kind, str(m.get("text", ""))[:300]))
            else:
                meta = json.dumps({"after": m.get("after"), "shares": m.get("shares") is True})
                self.emit(("r", self.next, json.dumps(m.get("v")), meta))
            self.next += 1
        elif m.get("done") is True and self.loaded and not self.done:
            self.done = True
            self.emit(("done",))
        else:
            self.bad = "a line out of order"

    def on_load(self, m: dict[str, Any]) -> None:
        kind = m.get("load")
        text = str(m.get("text", ""))[:300]
        if kind in _PRE:
            self.emit(("pre", _PRE[str(kind)], text))
            self.ready = True
            self.done = True
            return
        self.emit(("pre", None, ""))
        self.emit(("ready",))
        self.ready = True
        if kind == "ok":
            self.loaded = True
            self.emit(("loaded",))
        else:
            self.emit(("load", "resource" if kind == "resource" else "runtime", text))
            self.done = True

    def ended(self, status: int, tail: str) -> None:
        """The runtime has gone: say how, where the harness could not."""
        if self.done:
            return
        text = _ended(status, tail)
        kind = "resource" if _resource(tail, status) else "runtime"
        if not self.ready:
            self.on_load({"load": kind, "text": text})
        elif self.loaded:
            self.emit(("e", self.next, kind, text))
        self.done = True


def relay(
    rt: Runtime, binary: str, harness: str, code: str, fn: str, arity: int, calls_json: bytes, send_args: bool, memory_mb: int, emit: Callable[[Any], None], mark_w: int, workdir: str
) -> NoReturn:
    """Run the answer under its language's harness and relay what it reports. Never returns."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    hpath = os.path.join(workdir, "harness." + rt.ext)
    cpath = os.path.join(workdir, "candidate." + rt.ext)
    for path, text in ((hpath, harness), (cpath, code)):
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
    calls_r, calls_w = os.pipe()
    lines_r, lines_w = os.pipe()
    err_r, err_w = os.pipe()
    argv = [binary] + [a.format(mb=memory_mb) for a in rt.flags] + [hpath, cpath, fn, str(arity), "1" if send_args else "0"]
    # Where the answer's CPU time starts (the runtime's start-up counts: it is the answer's cost).
    try:
        _write_all(mark_w, struct.pack(">Q", time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)))
        os.close(mark_w)
    except OSError:
        pass
    try:
        pid = os.fork()
    except OSError as e:
        relay_obj = _Relay(emit)
        relay_obj.on_load({"load": "resource" if e.errno in (errno.EAGAIN, errno.ENOMEM) else "runtime", "text": "the judge could not start the %s runtime: %s" % (rt.name, e)})
        os._exit(0)
    if pid == 0:
        try:
            os.dup2(calls_r, 0)
            os.dup2(err_w, 2)
            os.dup2(lines_w, RESULT_FD)
            os.closerange(RESULT_FD + 1, 65536)  # the frame pipe and its key stay with the relay
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execve(binary, argv, dict(os.environ))
        except BaseException as e:
            try:
                _write_all(2, ("the judge could not start %s: %s\n" % (binary, e)).encode())
            finally:
                os._exit(127)
        os._exit(127)
    for fd in (calls_r, lines_w, err_w):
        os.close(fd)
    try:
        _write_all(calls_w, calls_json)
    except OSError:
        pass
    os.close(calls_w)
    r = _Relay(emit)
    buf = b""
    tail = b""
    open_fds = [lines_r, err_r]
    while open_fds and r.bad is None and not r.done:
        ready, _, _ = select.select(open_fds, [], [])
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.remove(fd)
                continue
            if fd == err_r:
                tail = (tail + chunk)[-TAIL_BYTES:]
                try:
                    _write_all(2, chunk)
                except OSError:
                    pass
                continue
            buf += chunk
            while b"\n" in buf and r.bad is None:
                raw, buf = buf.split(b"\n", 1)
                r.line(raw)
            if len(buf) > MAX_LINE_BYTES:
                r.bad = "a line longer than %d MB" % (MAX_LINE_BYTES >> 20)
    if r.bad is not None or r.done:
        # Done (or broken): whatever the answer left running (a timer, a thread) ends here.
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if r.bad is not None and not r.done:
        r.ended(status, "the harness's channel carried %s" % r.bad)
    r.ended(status, tail.decode("utf-8", "replace"))
    os._exit(0)
