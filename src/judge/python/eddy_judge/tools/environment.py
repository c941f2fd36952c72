"""The judge's Python environment as JSON on one line (eddy_judge/environment.py describe): the
interpreter and the packages it offers answers. Node runs it once per process for a queued study's
identity (src/queue/judgeRuntime.ts)."""

from __future__ import annotations

from ..environment import main

if __name__ == "__main__":
    main()
