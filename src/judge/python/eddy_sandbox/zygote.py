"""The zygote: a clean process that forks the worker's keepers (sandbox.py keeper), each of which
makes one candidate after another.

The worker starts it under bubblewrap (`bwrap … python -I -S -c BOOT`) with an empty environment,
in a world holding only the Python interpreter and its libraries. Its own code does not come from
any file: the worker sends the sources of the modules it needs (MODULES below) over the control
socket, so nothing of eddy's folder is bound into the
world, and no candidate can ever write a file the harness later runs. It never imports an oracle
or the worker; it serves keeper requests on the socket, each bringing one end of a socket over
which the worker then sends that keeper each sandbox's pipes.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import socket
import sys

from . import isolation as iso
from . import landlock
from . import sandbox
from .control import recv_control, send_control
from .relay import RESULT_FD
from .sandbox import WORKDIR, Config, candidate_env, harness_modules, keeper, prepare_streams, scratch_mounts, warm_up

# Modules answers commonly import, loaded once here: each candidate then starts with them. Each is
# paid by every candidate too: the zygote's memory and mappings are copied into each candidate's
# page tables by its clone and torn down when it ends: on this project's 2-core machine a fork
# and exit of a Python process cost about 0.1 ms more per megabyte of its heap and 0.13 ms more
# per 20 shared libraries it has loaded (issue #36). So only what answers import often and
# what is small stays: of 3,252 answers that EvalPlus published for six models (HumanEval+ and
# MBPP+), 3.2% import typing, 3.1% math, 0.9% re, 0.4% itertools, 0.3% collections, 0.25% cmath,
# 0.15% hashlib, 0.12% heapq, 0.06% functools, 0.03% datetime, none any other module listed here.
# Any other module still imports (the world binds the whole library), in the answer's own time.
# So does numpy, from the interpreter's site folders (issue #44), never preloaded: its import maps
# about 35 MB and 170 modules, which every candidate's clone would copy and tear down.
PRELOAD = (
    "abc bisect cmath collections collections.abc copy decimal enum fractions functools heapq io "
    "itertools json keyword math numbers operator random re string struct time typing unicodedata weakref"
).split()
# Only without a sandbox: a candidate with a uid of its own cannot read a library under /root
# there, so what it may import must be loaded before. (`threading` registers fork handlers that
# double the cost of every fork after it is imported, and bubblewrap's world has no such need.)
PRELOAD_FALLBACK = (
    "array base64 binascii calendar contextlib csv dataclasses datetime difflib hashlib pprint "
    "secrets signal socket statistics tempfile textwrap zlib encodings.idna shutil importlib "
    "importlib.util importlib.abc importlib.machinery threading queue subprocess"
).split()

# Run by `python -I -S -c BOOT <fd>`: read the module sources from the socket, load them as the
# package `eddy_sandbox`, then serve. Kept in one expression list so it fits on a command line.
BOOT = (
    "import sys, socket, struct, marshal, types\n"
    "s = socket.socket(fileno=int(sys.argv[1]))\n"
    "def take(n):\n"
    "    b = b''\n"
    "    while len(b) < n:\n"
    "        c = s.recv(n - len(b))\n"
    "        if not c: raise SystemExit(3)\n"
    "        b += c\n"
    "    return b\n"
    "mods = marshal.loads(take(struct.unpack('>I', take(4))[0]))\n"
    "pkg = types.ModuleType('eddy_sandbox'); pkg.__path__ = []; pkg.__package__ = 'eddy_sandbox'\n"
    "sys.modules['eddy_sandbox'] = pkg\n"
    "for name, src in mods:\n"
    "    m = types.ModuleType('eddy_sandbox.' + name); m.__package__ = 'eddy_sandbox'; m.__file__ = '<eddy_sandbox/%s.py>' % name\n"
    "    sys.modules[m.__name__] = m; setattr(pkg, name, m)\n"
    "    exec(compile(src, m.__file__, 'exec'), m.__dict__)\n"
    "del mods, name, src, m, pkg, take\n"
    "sys.modules['eddy_sandbox.zygote'].main(s)\n"
)
# The modules BOOT loads, in dependency order.
MODULES = ("control", "isolation", "landlock", "static_check", "relay", "digest", "sandbox", "zygote")


def setup(want: str, protect: list[int]) -> tuple[Config, list[str]]:
    """Check that each candidate can have namespaces of its own; (config, notes on what is missing)."""
    notes: list[str] = []
    cfg = Config(protect=protect, zygote=os.getpid())
    cfg.seccomp = iso.seccomp_supported()
    if cfg.seccomp:
        cfg.filter_no_spawn = iso.no_spawn_filter()
        cfg.filter_runtime = iso.no_spawn_filter(RESULT_FD)
        iso.prepare_seccomp(cfg.filter_no_spawn, cfg.filter_runtime)
    if want == "bwrap":
        # glibc's cached tid, which each candidate's clone must set (isolation.py clone_candidate).
        if not iso.find_tid_cache():
            notes.append("glibc's thread id field was not found: each candidate's main thread keeps its keeper's cached id")
        # Probe what each keeper will do (a user namespace once, then a candidate in new PID, mount
        # and IPC namespaces, twice), in a throw-away child.
        pid = iso.fork()
        if pid == 0:
            try:
                iso.enter_keeper_namespace()
                for _ in range(2):
                    child = iso.clone_candidate()
                    if child == 0:
                        ok = os.getpid() == 1 and (iso._TID_AT is None or iso.tid_cache_ok())
                        iso.mount("tmpfs", "/tmp", "tmpfs", iso.MS_NOSUID | iso.MS_NODEV, "size=4k")
                        iso.drop_capabilities()
                        iso.apply_seccomp(iso.candidate_filter())
                        os._exit(0 if ok and iso.effective_capabilities() == 0 else 1)
                    if os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) != 0:
                        os._exit(1)
                os._exit(0)
            except BaseException:
                os._exit(1)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
            raise SystemExit(17)  # the worker starts a fallback zygote and says why
        cfg.mode = "bwrap"
        cfg.filter = iso.candidate_filter()
        cfg.filter_foreign = iso.candidate_filter(foreign=True)
        iso.prepare_seccomp(cfg.filter, cfg.filter_foreign)
    else:
        notes.append("no sandbox: %s" % want)
    cfg.fresh_uid = cfg.mode == "none" and os.geteuid() == 0  # (bwrap: set by main when it changed uid)
    if cfg.mode == "none":
        import tempfile  # (the fallback's zygote only: PRELOAD_FALLBACK)

        cfg.temp_base = tempfile.mkdtemp(prefix="eddy-judge-")
        os.chmod(cfg.temp_base, 0o711)
        # Each candidate's files: only in its own folder there, where the kernel has Landlock (issue #43).
        notes.append(landlock.prepare(cfg.temp_base, cfg.fresh_uid))
    return cfg, notes


def prepare_candidates(cfg: Config) -> None:
    """What every candidate would otherwise do for itself after its fork: in a fork each page
    of this process's heap that Python touches is copied on the first write, a fault each, so
    Python run once here is cheaper than the same Python run in every candidate."""
    if cfg.mode == "bwrap":
        # Every candidate has the same environment there (its scratch folder has the same path).
        os.environ.clear()
        os.environ.update(candidate_env(WORKDIR))
        cfg.env_ready = True
        cfg.scratch_mounts = scratch_mounts()
    prepare_streams()
    warm_up()  # before the list below: it may import what the static check imports lazily
    cfg.harness_modules = harness_modules()
    cfg.modules_count = len(sys.modules)


def main(sock: socket.socket) -> None:
    iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    (want, protect, become, *more), _ = recv_control(sock, 8)
    # The interpreter's site folders (environment.py): after the standard library, as `site` puts
    # them, with no .pth file run. What answers import from there they import in their own time.
    library = tuple(p for p in (more[0] if more else ()) if type(p) is str)
    sys.path.extend(library)
    sandbox.LIBRARY_DIRS = library
    if become >= 0:
        # Started by root in bubblewrap's privileged mode: a uid of its own, and with it no capability.
        os.setgroups([])
        os.setgid(become)
        os.setuid(become)
        if iso.effective_capabilities() != 0:
            raise SystemExit(18)
        # A uid change leaves the process non-dumpable, which would keep each keeper from writing
        # its new user namespace's maps (the keeper makes itself non-dumpable once it has).
        iso.prctl(iso.PR_SET_DUMPABLE, 1)
    cfg, notes = setup(want, protect)
    if become >= 0:
        cfg.fresh_uid = True
    for name in PRELOAD + (PRELOAD_FALLBACK if cfg.mode == "none" else []):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    prepare_candidates(cfg)
    send_control(sock, ("ok", cfg.mode, cfg.fresh_uid, cfg.seccomp, notes, landlock.ABI))
    # Children share these pages copy-on-write; a frozen heap is never touched by their GC.
    gc.collect()
    gc.freeze()
    try:
        while True:
            # One request per keeper the worker wants (two at first, another only when one has
            # died or was let go): its end of a socket, over which it sends each sandbox's pipes
            # to that keeper directly. No answer's sandbox passes through here.
            try:
                msg, fds = recv_control(sock, 8)
            except (EOFError, OSError):
                break
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                pass
            if msg != ("keeper",) or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                send_control(sock, ("error", "expected a keeper request and one descriptor"))
                continue
            pid = iso.fork()  # without CPython's at-fork handlers (isolation.py fork)
            if pid == 0:
                sock.close()
                keeper(cfg, fds[0])
                os._exit(115)
            os.close(fds[0])
            try:
                try:
                    pidfd = os.pidfd_open(pid)
                except (AttributeError, OSError):
                    send_control(sock, ("keeper", pid))
                else:
                    send_control(sock, ("keeper", pid), [pidfd])
                    os.close(pidfd)
            except OSError:
                break  # the worker has gone; its keepers die with it (PDEATHSIG)
    finally:
        if cfg.mode == "none":
            import shutil

            shutil.rmtree(cfg.temp_base, ignore_errors=True)
