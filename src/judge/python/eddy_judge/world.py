"""The candidates' world, seen from the trusted worker: start the zygote under bubblewrap (or,
only where none can be had, without a sandbox) and describe honestly what contains candidates.

bubblewrap builds the zygote's world up from nothing: an empty root holding the interpreter, its
standard library and the shared libraries it loads, all read-only; its own user, PID, network,
IPC, UTS and cgroup namespaces; no capabilities; a seccomp filter; death with its parent. eddy's
folder, the oracles and templates, the database, $HOME and the host's /tmp are never bound, and
the zygote's own code arrives over its socket rather than from a file.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import eddy_sandbox
from eddy_sandbox import isolation as iso
from eddy_sandbox.control import recv_control, send_control
from eddy_sandbox.zygote import BOOT, MODULES

from .environment import ALTERNATIVES, library_alternatives, site_dirs
from .languages import LANGUAGES, runtime_path

# The sandbox package, whose modules the zygote is sent (never this one).
SANDBOX_DIR = os.path.dirname(os.path.abspath(eddy_sandbox.__file__))
ZYGOTE_TMP_BYTES = 1024 * 1024
LIB_DIRS = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/lib", "/lib64", "/lib32", "/libx32")


class WorldError(Exception):
    """The zygote could not be started at all."""


@dataclass
class Zygote:
    proc: subprocess.Popen[bytes]
    sock: socket.socket
    mode: str
    fresh_uid: bool
    seccomp: bool
    notes: list[str] = field(default_factory=list)
    bwrap_version: str = ""
    landlock: int = 0  # the Landlock ABI each candidate restricts its files with (no sandbox only; 0: none)


def bwrap_path() -> str | None:
    """bubblewrap's binary: EDDY_BWRAP when set (an empty value means none), else `bwrap` on PATH."""
    explicit = os.environ.get("EDDY_BWRAP")
    if explicit is not None:
        return explicit if explicit and os.access(explicit, os.X_OK) else None
    return shutil.which("bwrap")


def bwrap_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, env={}).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.splitlines()[0] if out else ""


def _interpreter() -> str:
    return os.path.realpath(sys.executable)


# As root, the zygote becomes a uid of its own (one per worker, far above any real account):
# candidates then map to that uid, never to root, so that RLIMIT_NPROC holds (the kernel does not
# apply it to root's processes) and nothing they start belongs to anyone else.
UID_BASE = 2_000_000_000


def world_args(bwrap: str, seccomp_fd: int, as_root: bool) -> list[str]:
    """bubblewrap's command line, up to (not including) the command it runs."""
    args = [bwrap, "--die-with-parent", "--new-session", "--clearenv", "--hostname", "eddy-sandbox"]
    if as_root:
        # Privileged bubblewrap without a user namespace: the zygote keeps only CAP_SETUID and
        # CAP_SETGID, to become its own uid first thing (which drops them too).
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        # An ordinary uid inside: the zygote maps its own uid into each candidate's user namespace.
        args += ["--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--uid", str(iso.CANDIDATE_UID), "--gid", str(iso.CANDIDATE_UID)]
    bound: list[str] = []
    # Made first, traversable: bubblewrap would otherwise make /usr (for /usr/lib) and /etc 0700,
    # owned by root, and another language's runtime under /usr/bin could not be reached by candidates.
    args += ["--perms", "0755", "--dir", "/usr", "--perms", "0755", "--dir", "/etc"]
    for p in LIB_DIRS:
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
            bound.append(p)
    exe = _interpreter()
    made: set[str] = {"/usr", "/etc"}

    def bind(p: str) -> list[str]:
        # bubblewrap gives the folders it makes on the way the host's modes: /root's 0700 would
        # keep the candidates' uid from the interpreter's library. They are made 0755 first.
        out: list[str] = []
        parts = p.strip("/").split("/")[:-1]
        for k in range(1, len(parts) + 1):
            d = "/" + "/".join(parts[:k])
            if d not in made and not any(d == b or d.startswith(b + "/") for b in bound):
                made.add(d)
                out += ["--perms", "0755", "--dir", d]
        return out + ["--ro-bind", p, p]

    for p in sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}):
        # A system Python's prefix is /usr: its standard library is under /usr/lib, bound above.
        if p in ("/", "/usr") or any(p == b or p.startswith(b + "/") for b in bound):
            continue
        args += bind(p)
        bound.append(p)
    if not any(exe.startswith(b + "/") for b in bound):
        args += bind(exe)
    # Other languages' runtimes (those installed), read-only, with what they read at start-up.
    for lang in LANGUAGES.values():
        rt = lang.runtime
        path = None if rt is None else runtime_path(rt.binary)
        if rt is None or path is None:
            continue
        if not any(path.startswith(b + "/") for b in bound):
            args += bind(path)
            bound.append(path)
        for extra in rt.binds:
            if os.path.isdir(extra) and not any(extra.startswith(b + "/") for b in bound):
                args += bind(extra)
                bound.append(extra)
    # The interpreter's site folders (third-party packages answers may import: numpy), read-only,
    # and the links to the shared libraries the distribution picks by alternatives (numpy's BLAS
    # and LAPACK on Debian), whose targets are bound above (environment.py).
    for p in site_dirs():
        if not any(p == b or p.startswith(b + "/") for b in bound):
            args += bind(p)
            bound.append(p)
    alternatives = library_alternatives(bound)
    if alternatives:
        args += ["--perms", "0755", "--dir", ALTERNATIVES]
        for link, target in alternatives:
            args += ["--symlink", target, link]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(ZYGOTE_TMP_BYTES), "--tmpfs", "/tmp"]
    # Nothing shared between candidates is writable: each mounts its own scratch space.
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/", "--seccomp", str(seccomp_fd)]
    return args


def _sources() -> bytes:
    import marshal

    mods = []
    for name in MODULES:
        with open(os.path.join(SANDBOX_DIR, name + ".py"), encoding="utf-8") as f:
            mods.append((name, f.read()))
    return marshal.dumps(mods)


def start_zygote(want: str, protect: list[int], fallback_reason: str = "") -> Zygote:
    """A zygote in bubblewrap's world when `want` is "bwrap" and that works; else, with the
    reason in its notes, one without a sandbox (the pool refuses it unless allowed)."""
    notes: list[str] = [fallback_reason] if fallback_reason else []
    bwrap = bwrap_path() if want == "bwrap" else None
    if want == "bwrap" and bwrap is None:
        notes.append("bubblewrap (bwrap) is not installed: install the 'bubblewrap' package")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    cmd = [_interpreter(), "-I", "-S", "-c", BOOT, str(theirs.fileno())]
    pass_fds = [theirs.fileno()]
    filt_r = -1
    version = ""
    if bwrap is not None:
        filt_r, filt_w = os.pipe()
        code = iso.zygote_filter()
        os.write(filt_w, code)  # a few hundred bytes: well within a pipe's buffer
        os.close(filt_w)
        cmd = world_args(bwrap, filt_r, os.geteuid() == 0) + cmd
        pass_fds.append(filt_r)
        version = bwrap_version(bwrap)
    proc = subprocess.Popen(cmd, env={}, pass_fds=pass_fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd="/")
    theirs.close()
    if filt_r >= 0:
        os.close(filt_r)
    try:
        src = _sources()
        ours.sendall(len(src).to_bytes(4, "big") + src)
        become = UID_BASE + os.getpid() if bwrap is not None and os.geteuid() == 0 else -1
        send_control(ours, ("bwrap" if bwrap is not None else (notes[0] if notes else "namespaces disabled by EDDY_JUDGE_NO_NAMESPACES"), protect, become, site_dirs()))
        (tag, mode, fresh_uid, seccomp, znotes, landlock), _ = recv_control(ours, 2)
    except (EOFError, OSError):
        ours.close()
        code = proc.wait()
        err = (proc.stderr.read() if proc.stderr else b"").decode("utf-8", "replace").strip().splitlines()
        if bwrap is not None:
            why = "per-candidate namespaces are not allowed inside bubblewrap" if code == 17 else "bubblewrap failed: %s" % (err[-1][:200] if err else "status %s" % code)
            z = start_zygote("none", protect, why)
            return z
        raise WorldError("the sandbox zygote failed to start (status %s%s)" % (code, ": " + err[-1][:200] if err else ""))
    if proc.stderr is not None:
        proc.stderr.close()
    if tag != "ok":
        raise WorldError("the sandbox zygote failed to start")
    return Zygote(proc, ours, mode, fresh_uid, seccomp, notes + list(znotes), version, landlock if type(landlock) is int else 0)


def report(z: Zygote, cpu_factor: float, factor_source: str = "measured") -> dict[str, Any]:
    """The IsolationReport shape (src/judge/types.ts)."""
    sandboxed = z.mode == "bwrap"
    if sandboxed:
        parts = ["bwrap", "userns", "pidns", "mountns", "ipcns", "netns", "utsns", "nocaps", "seccomp-allowlist", "rlimits"] + (["uid"] if z.fresh_uid else [])
        mechanism = "%s; per-candidate user, PID, mount and IPC namespaces; all capabilities dropped; seccomp allow-list; rlimits;%s no cgroup" % (
            z.bwrap_version or "bubblewrap",
            " a uid of its own per worker (eddy runs as root);" if z.fresh_uid else "",
        )
    else:
        parts = ["NO-SANDBOX"] + (["uid"] if z.fresh_uid else []) + ["rlimits"] + (["seccomp"] if z.seccomp else []) + (["landlock"] if z.landlock else [])
        mechanism = "no sandbox; rlimits%s%s; %s; no cgroup" % (
            ", a uid of its own" if z.fresh_uid else "",
            ", seccomp deny-list" if z.seccomp else "",
            "Landlock (ABI %d): files written only in the answer's own folder" % z.landlock if z.landlock else "NO Landlock: files written wherever permissions allow",
        )
    notes = list(z.notes)
    if sandboxed:
        notes.append(
            "candidates run forked from a clean zygote in a world bubblewrap builds from nothing (the Python interpreter and its libraries, read-only; "
            "no host files, no network, no host processes), each in user, PID, mount and IPC namespaces of its own with fresh size-limited /tmp and /dev/shm, "
            "no capabilities, a seccomp allow-list (no mount, unshare, setns, sockets, memfd, bpf, ptrace, io_uring, keyctl, signal handlers) and rlimits; "
            "memory is bounded by RLIMIT_AS per process (%d processes at most) and the tmpfs sizes, not by a cgroup" % 32
        )
    else:
        writes = "" if z.landlock else " and write to files the user can write%s" % (" (candidates run under a uid of their own, so only world-writable ones)" if z.fresh_uid else "")
        notes.append("WITHOUT a sandbox: no namespaces, so candidates can read every file this user can read (oracles included), list processes in /proc%s" % writes)
        if z.seccomp:
            notes.append("seccomp refuses sockets (but socketpairs), tracing, signals by thread id or pidfd, kill() of eddy's processes, of process groups and of every process; it does not hide eddy's /proc entries")
        else:
            notes.append("no seccomp on this architecture: network access is NOT blocked")
    how = {
        "env": "fixed by EDDY_JUDGE_CPU_FACTOR",
        "cache": "measured once on a quiet moment and stored in the user's cache folder",
        "measured": "measured now on a quiet moment and stored in the user's cache folder",
        "measured-busy": "measured now on a busy machine and NOT stored (measured again next time)",
    }.get(factor_source, factor_source)
    notes.append("CPU budgets are scaled by this machine's measured speed: factor %.2f (%s)" % (cpu_factor, how))
    return {
        "level": "+".join(parts),
        "sandboxed": sandboxed,
        "mode": z.mode,
        "mechanism": mechanism,
        "bubblewrap": z.bwrap_version or None,
        "seccomp": "allow-list" if sandboxed else ("deny-list" if z.seccomp else "none"),
        "cgroup": False,
        "network": "namespace" if sandboxed else ("seccomp" if z.seccomp else "none"),
        "pidNamespace": sandboxed,
        "unprivilegedUser": sandboxed or z.fresh_uid,
        "rlimits": ["cpu", "as", "nproc", "fsize", "nofile", "core"],
        "cpuFactor": round(cpu_factor, 4),
        "cpuFactorSource": factor_source,
        "notes": notes,
    }
