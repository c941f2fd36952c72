"""The zygote: a clean process that forks one sandbox per candidate.

The worker execs it with an empty environment (`python -I -S`), so neither the user's
environment strings nor any oracle, request or expected value ever exist in its memory, and
every candidate forked from it inherits nothing of the kind. It sets up the namespaces shared by
all candidates once (network, IPC, UTS, mounts with the oracle and source folders hidden), then
serves fork requests on a Unix socket: each brings the candidate's pipes as file descriptors.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import socket
import sys
import tempfile
from typing import Any

from . import isolation as iso
from .protocol import recv_control, send_control
from .sandbox import Config, keeper

# Modules a candidate commonly imports, loaded once here: each candidate then starts with them
# (and a candidate with a uid of its own cannot read a Python library under /root anyway).
PRELOAD = (
    "abc array base64 binascii bisect calendar cmath collections collections.abc contextlib copy "
    "csv dataclasses datetime decimal difflib enum fractions functools hashlib heapq io itertools "
    "json keyword math numbers operator pprint queue random re secrets signal socket statistics "
    "string struct subprocess tempfile textwrap threading time typing unicodedata weakref zlib "
    "ctypes encodings.idna shutil importlib importlib.util importlib.abc importlib.machinery"
).split()


def setup(want: str, hide: list[str], protect: list[int]) -> tuple[Config, list[str]]:
    """Enter the shared namespaces where possible; (config, notes on what is missing)."""
    notes: list[str] = []
    cfg = Config(protect=protect, zygote=os.getpid())
    flags = iso.CLONE_NEWNS | iso.CLONE_NEWNET | iso.CLONE_NEWIPC | iso.CLONE_NEWUTS
    if want != "none":
        try:
            if os.geteuid() == 0 and want in ("auto", "namespaces"):
                iso.unshare(flags)
                cfg.mode = "namespaces"
            else:
                iso.enter_user_namespace(flags)
                cfg.mode = "userns"
            iso.make_private_root()
            try:
                iso.sethostname("eddy-sandbox")
            except OSError:
                pass
            # Probe what each candidate's keeper will do, in a throw-away child.
            pid = os.fork()
            if pid == 0:
                try:
                    iso.unshare(iso.CLONE_NEWPID | iso.CLONE_NEWNS | iso.CLONE_NEWIPC)
                    os._exit(0)
                except OSError:
                    os._exit(1)
            if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
                raise OSError("cannot create PID namespaces")
            for place in hide:
                if iso.hide(place):
                    cfg.hidden.append(place)
        except OSError as e:
            # Half set up (e.g. a network namespace but no PID namespace) is not a mode the
            # worker can describe honestly: start again as a fresh fallback zygote.
            if cfg.mode != "none":
                raise SystemExit(17)
            notes.append("no namespaces (%s)" % (e.strerror or e))
    else:
        notes.append("namespaces disabled by EDDY_JUDGE_NO_NAMESPACES")
    cfg.fresh_uid = os.geteuid() == 0 and cfg.mode != "userns"
    cfg.seccomp = iso.seccomp_supported()
    if cfg.mode == "none":
        cfg.temp_base = tempfile.mkdtemp(prefix="eddy-judge-")
        os.chmod(cfg.temp_base, 0o711)
    return cfg, notes


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    (want, hide, protect), _ = recv_control(sock, 8)
    cfg, notes = setup(want, hide, protect)
    # Only now: a non-dumpable process cannot write its own uid_map (user namespaces).
    iso.prctl(iso.PR_SET_DUMPABLE, 0)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    send_control(sock, ("ok", cfg.mode, cfg.fresh_uid, cfg.seccomp, cfg.hidden, notes))
    # Children share these pages copy-on-write; a frozen heap is never touched by their GC.
    gc.collect()
    gc.freeze()
    try:
        while True:
            try:
                _, fds = recv_control(sock, 8)
            except (EOFError, OSError):
                break
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                pass
            names = ("job", "res", "out", "status", "ctl")
            if len(fds) != len(names):
                for fd in fds:
                    os.close(fd)
                send_control(sock, ("error", "expected %d descriptors" % len(names)))
                continue
            by_name: dict[str, int] = dict(zip(names, fds))
            pid = os.fork()
            if pid == 0:
                sock.close()
                keeper(cfg, by_name)
                os._exit(115)
            for fd in fds:
                os.close(fd)
            try:
                try:
                    pidfd = os.pidfd_open(pid)
                except (AttributeError, OSError):
                    send_control(sock, ("forked", pid))
                else:
                    send_control(sock, ("forked", pid), [pidfd])
                    os.close(pidfd)
            except OSError:
                break  # the worker has gone; its sandboxes die with it (PDEATHSIG)
    finally:
        if cfg.mode == "none":
            import shutil

            shutil.rmtree(cfg.temp_base, ignore_errors=True)


if __name__ == "__main__":
    main()
