"""eddy's Python judge, standard library only.

Two kinds of process (README "The judge"):
- the trusted worker (`python -I -m eddy_judge`, module `worker`) loads oracles, computes
  expected outputs and compares; candidate code never runs in it;
- a clean zygote (module `zygote`), exec'd with an empty environment, that never imports an
  oracle or the worker, and forks one sandboxed child per candidate (module `sandbox`).
"""

import sys

# The one place the minimum Python version is stated (README repeats it for people). 3.11: the
# candidate's harness hands jobs to the answer's thread through C callables, operator.call among
# them (sandbox.py _run), and the judge is tested on 3.11.
MIN_PYTHON = (3, 11)

if sys.version_info < MIN_PYTHON:  # pragma: no cover - checked before anything else runs
    sys.stderr.write("eddy's judge needs Python %d.%d or newer\n" % MIN_PYTHON)
    raise SystemExit(2)
