"""Programs eddy's TypeScript side runs on trusted code, outside the judge: the strength measurement
(strength.py), the Turbulence importer's probe (probe_turbulence.py) and the judge's
Python environment (environment.py). Run as
`python -I -c <workerScript.ts toolArgs> eddy_judge.tools.<name>`. They are not the judge:
judgeVersion() hashes only the package's top-level modules, so editing one keeps cached verdicts."""
