"""Programs eddy's TypeScript side runs on trusted code, outside the judge: the strength measurement
(strength.py) and the judge's Python environment (environment.py). (The importers' own Python lives
with each importer, in src/import/<benchmark>/.) Run as
`python -I -c <workerScript.ts toolArgs> eddy_judge.tools.<name>`. They are not the judge:
judgeVersion() hashes only the package's top-level modules, so editing one keeps cached verdicts."""
