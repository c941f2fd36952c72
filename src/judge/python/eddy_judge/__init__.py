"""eddy's Python judge, standard library only: its trusted side.

Two kinds of process (README "The judge"), one package each:
- the trusted worker (`python -I -m eddy_judge`, module `worker`: this package) loads oracles,
  computes expected outputs and compares; candidate code never runs in it;
- a clean zygote (the package `eddy_sandbox`, beside this one), exec'd with an empty environment,
  that never imports an oracle or the worker, and forks one sandboxed child per candidate. This
  package imports that one, never the reverse (test/judge/python/test_modules.py).
The answer languages come from eddy's language registry, src/languages (languages.py).
"""

import sys

# The one place the minimum Python version is stated (README repeats it for people). 3.11: the
# candidate's harness hands jobs to the answer's thread through C callables, operator.call among
# them (eddy_sandbox/sandbox.py _run), and the judge is tested on 3.11.
MIN_PYTHON = (3, 11)

if sys.version_info < MIN_PYTHON:  # pragma: no cover - checked before anything else runs
    sys.stderr.write("eddy's judge needs Python %d.%d or newer\n" % MIN_PYTHON)
    raise SystemExit(2)
