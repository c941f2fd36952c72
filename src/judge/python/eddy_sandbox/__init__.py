"""What runs inside the judge's sandbox, standard library only: the zygote (zygote.py), its
keepers and their candidates (sandbox.py), with the static check they run before any answer code
(static_check.py), the relay of another language's runtime (relay.py), the digest walk the
answer's side takes (digest.py), the kernel's isolation (isolation.py, landlock.py) and the
control channel (control.py).

The zygote is sent exactly these modules' sources over its socket (zygote.py MODULES) and loads
them as this package: nothing of eddy's folder is bound into the sandbox's world. This package never
imports the trusted side (the worker's package, which loads oracles, keeps expected outputs and
decides verdicts): whatever it loaded would share a process with the answer, which can read and
change it. The trusted side imports this one (the shapes of the jobs and frames it exchanges with
a sandbox), never the reverse; test/judge/python/test_modules.py holds both.
"""
