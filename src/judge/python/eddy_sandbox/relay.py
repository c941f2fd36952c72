"""Answers in languages other than Python: each runs under a small harness of its own language,
in the same sandbox as a Python candidate, behind a trusted relay.

The candidate's process (sandbox.py) stays the harness's Python: for another language it forks the
language's runtime (bound read-only into bubblewrap's world by the worker) running the harness,
hands it the calls as type-tagged JSON on stdin, and reads its answers as JSON lines on fd 3. Only
the relay holds the job's key: it turns each line into the same authenticated frames a Python run
writes, so the worker judges both alike. The runtime shares its process with the answer, so a
line on fd 3 is never trusted beyond what the answer could have returned itself; values are
decoded (and compared) on the worker's side. Which runtime, its flags and its harness come with
the job (`Foreign`): the worker reads them from eddy's language registry (src/languages), so
nothing here knows a language. Loaded by the zygote: standard library only.
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


class Foreign(NamedTuple):
    """Another language's runtime as a job names it (a plain tuple in the job's head, rebuilt here).
    (A NamedTuple: `dataclasses` would load `inspect` into the zygote, issue #36.)"""

    name: str
    binary: str  # the runtime's real path, found by the worker
    harness: str  # the harness's source
    ext: str  # the extension of the language's files
    # Arguments before the harness file; {mb} is the answer's memory budget.
    flags: tuple[str, ...]
    # Address space the runtime needs on top of the answer's memory budget (V8 reserves a lot).
    vm_mb: int
    # How the runtime says it ran out of memory or stack when it cannot say so to the harness.
    resource_words: tuple[str, ...]


RESULT_FD = 3
TAIL_BYTES = 4096
MAX_LINE_BYTES = 32 * 1024 * 1024
# A call whose expected output is kept as its digest (too large to keep) may send a larger value:
# it is read and digested here, bounded by the answer's own memory, and only the digest goes on.
MAX_DIGEST_LINE_BYTES = 1024 * 1024 * 1024
_PRE = {"syntax": "syntax_error", "missing": "no_function", "arity": "wrong_arg_count"}
FORGED = "a line on the harness's result channel that the harness did not write (no nonce of the relay's, or out of turn)"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _resource(text: str, status: int, words: tuple[str, ...]) -> bool:
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGABRT, signal.SIGSEGV, signal.SIGXCPU, signal.SIGXFSZ):
        return True
    return any(w in text for w in words)


def _ended(status: int, tail: str) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        how = "the answer's runtime was killed by %s" % (signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig)
    else:
        how = "the answer's runtime exited with status %d" % os.WEXITSTATUS(status)
    last = [ln for ln in tail.strip().splitlines() if ln.strip()][-1:]
    return (how + ("; " + last[0][:160] if last else ""))[:300]


class _Relay:
    """Reads the harness's lines and writes the authenticated frames; `emit` is the sandbox's.

    The relay leads: it hands the harness one step at a time (the load, each call, the end), each
    with a fresh nonce on the runtime's stdin, and takes exactly one line back for it, which must
    carry that nonce. The answer shares the runtime's process and cannot be kept from writing to
    fd 3, but a line it writes has no nonce it could know (the harness reads each one just before
    the step it belongs to), and a line too many or out of turn is seen: either is tampering. What
    decides a verdict beyond the answer's own values (which calls ran, how each ended, its CPU
    time, that the run finished) is the relay's own record, never a line's claim."""

    def __init__(self, emit: Callable[[Any], None], resource_words: tuple[str, ...] = ()) -> None:
        self.emit = emit
        self.resource_words = resource_words
        self.loaded = False
        self.ready = False
        self.next = 0
        self.done = False
        self.bad: str | None = None
        self.nonce = ""
        self.spent: list[float] = []  # each call's CPU time (ms), read by the relay
        self.digest: Callable[[Any], str] | None = None
        self.digest_calls: frozenset[int] = frozenset()

    def line(self, raw: bytes) -> None:
        # Nothing in a line may stop the relay (a deep array, a huge number): a line it cannot
        # read is the answer's.
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
        if m.get("n") != self.nonce or not self.nonce:
            self.tamper(FORGED, relay=True)
            return
        self.nonce = ""  # one line per step
        if "tamper" in m:
            # The harness found a Proxy, a getter or a redefined hook among the values.
            self.tamper(str(m.get("tamper"))[:200])
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
                value = m.get("v")
                if self.digest is not None and self.next in self.digest_calls:
                    # An expected output kept as its digest: the answer's goes back as its digest
                    # too, taken here, on the answer's side, as a Python answer's harness does.
                    value = self.digest(value)
                self.emit(("r", self.next, json.dumps(value), meta))
            self.next += 1
        elif m.get("done") is True and self.loaded and not self.done:
            self.done = True
            if len(self.spent) == self.next:
                self.emit(("times", self.spent))
            self.emit(("done",))
        else:
            self.bad = "a line out of order"

    def tamper(self, what: str, relay: bool = False) -> None:
        """The harness found tampering among the values, or (`relay`) the relay found a line the
        harness did not write."""
        self.emit(("tamper", ("relay: " if relay else "foreign: ") + what))
        self.ready = self.done = True

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
        kind = "resource" if _resource(tail, status, self.resource_words) else "runtime"
        if not self.ready:
            self.on_load({"load": kind, "text": text})
        elif self.loaded:
            self.emit(("e", self.next, kind, text))
        self.done = True


def plain(v: Any) -> Any:
    """An answer's type-tagged JSON value (wire.py) as the plain Python value its digest is taken
    of, in the sandbox (the relay's side): arrays are lists and integral numbers ints, as where no
    expected value says otherwise. Anything else (an opaque value, a bad tag) raises ValueError:
    not plain data, no digest. The answer's own CPU time pays for it."""
    if v is None or type(v) in (bool, str):
        return v
    if type(v) is not dict:
        raise ValueError("untagged")
    if "arr" in v and type(v.get("list")) is bool and type(v["arr"]) is list:
        pairs = v["arr"]
        if v["list"] is True:
            return [plain(p[1]) for p in pairs]
        return {plain(p[0]): plain(p[1]) for p in pairs}
    if len(v) != 1:
        raise ValueError("untagged")
    tag, x = next(iter(v.items()))
    if tag in ("int", "num"):
        if type(x) is not str or len(x) > 4000:
            raise ValueError("integer")
        return int(x)
    if tag == "float":
        if (type(x) is str and x in ("nan", "inf", "-inf")) or type(x) in (int, float):
            return float(x)
        raise ValueError("float")
    if type(x) is not list:
        raise ValueError(tag)
    if tag == "seq":
        return [plain(e) for e in x]
    if tag == "set":
        return {plain(e) for e in x}
    if tag == "map":
        return {plain(p[0]): plain(p[1]) for p in x}
    raise ValueError(tag)


def cpu_clock(pid: int) -> int:
    """The clock id of a process's CPU time, all its threads (Linux's MAKE_PROCESS_CPUCLOCK(pid,
    CPUCLOCK_SCHED)): readable by any process in its PID namespace, as clock_getcpuclockid gives."""
    return ((~pid) << 3) | 2


# How often the relay looks at a call's CPU time when the call has a limit of its own.
CALL_POLL_S = 0.05


def relay(
    rt: Foreign,
    code: str,
    fn: str,
    arity: int,
    calls_json: bytes,
    send_args: bool,
    memory_mb: int,
    emit: Callable[[Any], None],
    mark_w: int,
    workdir: str,
    lock_down: Callable[[], None],
    call_limits: list[float | None] | None = None,
    digest_calls: list[int] | None = None,
    digest: Callable[[Any], str] | None = None,
) -> NoReturn:
    """Run the answer under its language's harness and relay what it reports. Never returns.

    `lock_down` runs in the runtime's process just before its exec: from then on it can make no
    process (so its CPU-time clock is all of the answer's work) and cannot copy, replace or close
    fd 3. Each call's CPU time is read here, from that clock, while the harness waits for its next
    step: sent as the run's `times`, and a call over its own limit is stopped as it runs."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    hpath = os.path.join(workdir, "harness." + rt.ext)
    cpath = os.path.join(workdir, "candidate." + rt.ext)
    jpath = os.path.join(workdir, "calls.json")
    for path, text in ((hpath, rt.harness), (cpath, code)):
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
    with open(jpath, "wb") as fb:
        fb.write(calls_json)
    steps_r, steps_w = os.pipe()
    lines_r, lines_w = os.pipe()
    err_r, err_w = os.pipe()
    binary = rt.binary
    argv = [binary] + [a.format(mb=memory_mb) for a in rt.flags] + [hpath, cpath, fn, str(arity), "1" if send_args else "0", jpath]
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
            os.dup2(steps_r, 0)
            os.dup2(err_w, 2)
            os.dup2(lines_w, RESULT_FD)
            os.closerange(RESULT_FD + 1, 65536)  # the frame pipe and its key stay with the relay
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            lock_down()
            os.execve(binary, argv, dict(os.environ))
        except BaseException as e:
            try:
                _write_all(2, ("the judge could not start %s: %s\n" % (binary, e)).encode())
            finally:
                os._exit(127)
        os._exit(127)
    for fd in (steps_r, lines_w, err_w):
        os.close(fd)
    clock = cpu_clock(pid)
    r = _Relay(emit, tuple(rt.resource_words))
    if digest_calls and digest is not None:
        r.digest, r.digest_calls = digest, frozenset(digest_calls)

    def step() -> None:
        """The harness's next step, with a nonce of its own."""
        r.nonce = os.urandom(12).hex()
        try:
            _write_all(steps_w, (r.nonce + "\n").encode())
        except OSError:
            pass  # the runtime has gone: its end says how

    def cpu_ns() -> int:
        try:
            return time.clock_gettime_ns(clock)
        except OSError:
            return -1

    spent = r.spent
    started = -1  # the runtime's CPU clock when the running call was handed over (ns)
    step()  # the load's
    parts: list[bytes] = []  # a line's chunks until its newline comes (no quadratic joining)
    size = 0
    tail = b""
    open_fds = [lines_r, err_r]
    over: str | None = None
    while open_fds and r.bad is None and not r.done and over is None:
        limit = call_limits[r.next] if r.loaded and call_limits is not None and r.next < len(call_limits) else None
        ready, _, _ = select.select(open_fds, [], [], CALL_POLL_S if limit else None)
        if limit and started >= 0:
            now = cpu_ns()
            if now >= 0 and now - started > limit * 1e9:
                over = "CPU time limit of one input exceeded: %.0f ms of CPU time, over its own limit of %.0f ms" % ((now - started) / 1e6, limit * 1000.0)
                break
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
            if b"\n" not in chunk:
                parts.append(chunk)
                size += len(chunk)
                if size > (MAX_DIGEST_LINE_BYTES if r.next in r.digest_calls else MAX_LINE_BYTES):
                    r.bad = "a line longer than %d MB" % ((MAX_DIGEST_LINE_BYTES if r.next in r.digest_calls else MAX_LINE_BYTES) >> 20)
                continue
            parts.append(chunk)
            buf = b"".join(parts)
            parts.clear()
            while b"\n" in buf and r.bad is None and not r.done:
                raw, buf = buf.split(b"\n", 1)
                was = r.next
                loaded = r.loaded
                r.line(raw)
                if buf and r.bad is None and not r.done:
                    # The harness writes one line and waits for its next step: a second line
                    # is one it did not write.
                    r.tamper(FORGED, relay=True)
                    break
                if r.bad is not None or r.done:
                    break
                if r.loaded and started >= 0 and r.next == was + 1:
                    spent.append(max(0, cpu_ns() - started) / 1e6)
                if r.loaded and (r.next > was or not loaded):
                    started = cpu_ns()
                    step()  # the next call's, or (after the last) the end's
            if buf:
                parts.append(buf)
            size = len(buf)
    if over is not None:
        emit(("e", r.next, "resource", over))
        r.done = True
    os.kill(pid, signal.SIGKILL)  # done, broken or over: whatever the answer left running ends here
    _, status = os.waitpid(pid, 0)
    if r.bad is not None and not r.done:
        r.ended(status, "the harness's channel carried %s" % r.bad)
    r.ended(status, tail.decode("utf-8", "replace"))
    os._exit(0)
