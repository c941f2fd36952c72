"""The judge's Python environment: the interpreter and the third-party packages it offers answers.

Answers run with `python -I -S`: no `site`, so nothing of the interpreter's site folders is on
their path by itself. The judge adds those folders (`site_dirs`, the interpreter's own site- or
dist-packages, never a user's) after the standard library, binds them read-only into bubblewrap's
world (world.py) and records what they hold (`describe`): an answer that imports numpy imports
the interpreter's numpy, in its own time (the zygote does not preload it), and the run says which.
`.pth` files there are not run (they would run code at each candidate's start), so a package that
only a `.pth` file puts on the path is listed but not importable.

Shared libraries that the distribution picks by alternatives (Debian's BLAS and LAPACK, which
numpy loads) are symlinks into /etc/alternatives; the world gets those links (`library_alternatives`).

Run as a tool (`eddy_judge.tools.environment`) it prints `describe()` as JSON: what Node reads
for a queued study's identity, from the same code the worker's hello uses.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

ALTERNATIVES = "/etc/alternatives"
# A shared library's name, as alternatives name them (libblas.so.3-x86_64-linux-gnu).
_SHARED_LIBRARY = re.compile(r"\.so(?:[.-]|$)")


def site_dirs() -> list[str]:
    """The interpreter's own site folders that exist, resolved, in its own path order (no user
    site: the worker runs with -I). Empty when `site` is not loaded (python -S)."""
    site = sys.modules.get("site")
    get = getattr(site, "getsitepackages", None)
    if get is None:
        return []
    out: list[str] = []
    for d in get():
        real = os.path.realpath(d)
        if real not in out and os.path.isdir(real):
            out.append(real)
    return out


def _headers(text: str) -> tuple[str, str]:
    """Name and Version from a core-metadata header block (METADATA, PKG-INFO)."""
    name = version = ""
    for line in text.splitlines():
        if not line.strip():
            break  # the description follows the headers
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key == "name" and not name:
            name = value.strip()
        elif key == "version" and not version:
            version = value.strip()
    return name, version


def _read_head(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(8192)
    except OSError:
        return ""


def packages(dirs: list[str]) -> dict[str, str]:
    """Distribution name -> version of every package installed in `dirs` (dist-info and egg-info
    records), the first found in path order winning, as import finds it. Read from the records'
    headers only: importing importlib.metadata would cost every judge worker its email parser."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for entry in names:
            if entry.endswith(".dist-info"):
                text = _read_head(os.path.join(d, entry, "METADATA"))
            elif entry.endswith(".egg-info"):
                p = os.path.join(d, entry)
                text = _read_head(os.path.join(p, "PKG-INFO") if os.path.isdir(p) else p)
            else:
                continue
            name, version = _headers(text)
            if not name or not version:
                continue
            key = re.sub(r"[-_.]+", "-", name).lower()
            if key in seen:
                continue
            seen.add(key)
            out[name] = version
    return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))


def library_alternatives(bound: list[str], folder: str = ALTERNATIVES) -> list[tuple[str, str]]:
    """(link, target) for each shared library in /etc/alternatives (`folder`) whose target lies in
    one of the `bound` folders: the links the world needs for libraries reached through them.
    A link that leads elsewhere (a JDK's tools, an editor) stays out of the world."""
    out: list[tuple[str, str]] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if not _SHARED_LIBRARY.search(name):
            continue
        link = os.path.join(folder, name)
        try:
            target = os.readlink(link)
        except OSError:
            continue
        real = os.path.realpath(link)
        if os.path.isabs(target) and any(real.startswith(b + "/") for b in bound):
            out.append((link, target))
    return out


def describe() -> dict[str, Any]:
    """The judge's interpreter and what it offers answers (src/judge/types.ts JudgeEnvironment)."""
    dirs = site_dirs()
    return {
        "executable": os.path.realpath(sys.executable),
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": sys.implementation.name,
        "sitePackages": dirs,
        "packages": packages(dirs),
    }


def main() -> None:
    import json

    sys.stdout.write(json.dumps(describe()) + "\n")
