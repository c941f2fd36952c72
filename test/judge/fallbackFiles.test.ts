/**
 * The no-sandbox mode's files (issue #43). Without bubblewrap an answer has no /tmp of its own and
 * no read-only root: as an ordinary user it could rewrite the stored host factor (and so give later
 * runs a larger CPU budget), and as root (a uid of its own) leave files in /tmp, /dev/shm and
 * /var/tmp for later answers. Here hostile answers in Python, JavaScript, Ruby and PHP try both, as
 * root and as an ordinary user who owns a copy of eddy (as in asUser.test.ts), without a sandbox
 * (Landlock keeps each answer's writes in its own folder, removed after it) and with bubblewrap;
 * and on a kernel without Landlock (its calls refused by a seccomp filter around the judge) the mode
 * still works and says so, and as root what an answer left in the shared folders is removed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolationReport, Verdict } from "../../src/judge/types.js";
import { fixtureTemplate } from "./fixtures/templates.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const PYTHON = "/usr/bin/python3";
const canRun = process.getuid?.() === 0 && existsSync("/usr/sbin/runuser") && existsSync(PYTHON) && existsSync(path.join(root, "dist/judge/JudgePool.js"));
const landlockAbi = (): number => {
    const r = spawnSync(PYTHON, ["-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); from eddy_sandbox import landlock; print(landlock.abi_version())", path.join(root, "src/judge/python")], { encoding: "utf8" });
    return Number(r.stdout.trim()) || 0;
};
const hasLandlock = canRun && landlockAbi() > 0;
const runtimes = ["node", "ruby", "php"].every((b) => existsSync(`/usr/bin/${b}`));
const bindings = { lo: 1, hi: 3 };
const CORRECT = "def sum_range(values):\n    return sum(values[1:4])\n";
const SHARED = ["/tmp", "/dev/shm", "/var/tmp"];
const MARKER = `eddy43-${process.pid}-${Date.now().toString(36)}`;

let copy = "";
let key = "";

interface Case {
    name: string;
    code: string;
    language?: "javascript" | "ruby" | "php";
}
interface Run {
    isolation: IsolationReport;
    verdicts: Verdict[];
}
interface Setting {
    who: "root" | "nobody";
    mode: "none" | "bwrap";
    landlock?: boolean; // false: the judge runs under a filter that refuses Landlock's calls (ENOSYS)
}

// Files in the shared scratch folders (a file, a folder, a FIFO), and in its own folder a file
// under folders it made unreadable and unwritable, so that a careless clean-up leaves them.
const leave = (tag: string) =>
    "import os\n" +
    `M = ${JSON.stringify(`${MARKER}-${tag}`)}\n` +
    "def sum_range(values):\n" +
    `    for d in ${JSON.stringify(SHARED)}:\n` +
    "        for how in ('file', 'dir', 'fifo'):\n" +
    "            p = os.path.join(d, M + '-' + how)\n" +
    "            try:\n" +
    "                if how == 'file':\n" +
    "                    with open(p, 'w') as f:\n" +
    "                        f.write('left by an earlier answer')\n" +
    "                    os.chmod(p, 0o666)\n" +
    "                elif how == 'dir':\n" +
    "                    os.mkdir(p)\n" +
    "                    os.chmod(p, 0o777)\n" +
    "                else:\n" +
    "                    os.mkfifo(p, 0o666)\n" +
    "            except OSError:\n" +
    "                pass\n" +
    "    if not os.path.exists('keep'):\n" +
    "        os.makedirs('keep/inner')\n" +
    "        with open('keep/inner/' + M, 'w') as f:\n" +
    "            f.write('x')\n" +
    "        os.chmod('keep/inner', 0)\n" +
    "        os.chmod('keep', 0o500)\n" +
    "    return sum(values[1:4])\n";

// A later answer: anything of an earlier one's, in the shared folders or beside its own folder?
const find = (tag: string) =>
    "import os\n" +
    `M = ${JSON.stringify(`${MARKER}-${tag}`)}\n` +
    "def sum_range(values):\n" +
    "    found = []\n" +
    `    for d in ${JSON.stringify(SHARED)}:\n` +
    "        try:\n" +
    "            found += [os.path.join(d, n) for n in os.listdir(d) if n.startswith(M)]\n" +
    "        except OSError:\n" +
    "            pass\n" +
    "    here = os.getcwd()\n" +
    "    base = os.path.dirname(here)\n" +
    "    try:\n" +
    "        for n in os.listdir(base):\n" +
    "            if os.path.join(base, n) != here:\n" +
    "                for top, dirs, files in os.walk(os.path.join(base, n)):\n" +
    "                    found += [os.path.join(top, f) for f in dirs + files if f == 'keep' or f.startswith(M)]\n" +
    "    except OSError:\n" +
    "        pass\n" +
    "    return 'FOUND ' + ' '.join(found) if found else sum(values[1:4])\n";

// Every way to rewrite the stored host factor: in place, by rename, by unlink and create.
const hostFactor = (file: string) =>
    "import json, os\n" +
    `P = ${JSON.stringify(file)}\n` +
    "def sum_range(values):\n" +
    "    try:\n" +
    "        with open(P) as f:\n" +
    "            data = json.load(f)\n" +
    "        for e in data['machines'].values():\n" +
    "            e['factor'] = 8.0\n" +
    "    except Exception:\n" +
    "        data = {'version': 1, 'machines': {}}\n" +
    "    text = json.dumps(data)\n" +
    "    def in_place():\n" +
    "        with open(P, 'r+') as f:\n" +
    "            f.write(text)\n" +
    "            f.truncate()\n" +
    "    def by_rename():\n" +
    "        with open(P + '.x', 'w') as f:\n" +
    "            f.write(text)\n" +
    "        os.replace(P + '.x', P)\n" +
    "    def by_unlink():\n" +
    "        os.unlink(P)\n" +
    "        with open(P, 'w') as f:\n" +
    "            f.write(text)\n" +
    "    for attempt in (in_place, by_rename, by_unlink):\n" +
    "        try:\n" +
    "            attempt()\n" +
    "            break\n" +
    "        except OSError:\n" +
    "            pass\n" +
    "    return sum(values[1:4])\n";

// The same in another language's runtime, which must still write in its own temp folder (TMPDIR).
const foreign = (language: "javascript" | "ruby" | "php", tag: string, factorFile: string): string => {
    const m = JSON.stringify(`${MARKER}-${tag}-${language}`);
    const hf = JSON.stringify(factorFile);
    if (language === "javascript")
        return (
            "const fs = require('fs'), os = require('os'), path = require('path');\n" +
            "function sum_range(values) {\n" +
            "    fs.writeFileSync(path.join(os.tmpdir(), 'scratch.txt'), 'its own');\n" +
            `    for (const d of ${JSON.stringify(SHARED)}) { try { fs.writeFileSync(path.join(d, ${m}), 'x'); } catch (e) {} }\n` +
            `    try { fs.writeFileSync(${hf}, '{"version": 1, "machines": {}}'); } catch (e) {}\n` +
            "    return values.slice(1, 4).reduce((a, b) => a + b, 0);\n" +
            "}\n"
        );
    if (language === "ruby")
        return (
            "require 'tmpdir'\n" +
            "def sum_range(values)\n" +
            "  File.write(File.join(Dir.tmpdir, 'scratch.txt'), 'its own')\n" +
            `  ${JSON.stringify(SHARED)}.each { |d| begin; File.write(File.join(d, ${m}), 'x'); rescue SystemCallError; end }\n` +
            `  begin; File.write(${hf}, '{}'); rescue SystemCallError; end\n` +
            "  (values[1, 3] || []).sum\n" +
            "end\n"
        );
    return (
        "<?php\n" +
        "function sum_range($values) {\n" +
        "    if (file_put_contents(sys_get_temp_dir() . '/scratch.txt', 'its own') === false) throw new Exception('no scratch folder');\n" +
        `    foreach (${JSON.stringify(SHARED)} as $d) @file_put_contents($d . '/' . ${m}, 'x');\n` +
        `    @file_put_contents(${hf}, '{}');\n` +
        "    return array_sum(array_slice($values, 1, 3));\n" +
        "}\n"
    );
};

const DRIVER = `import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
const here = path.dirname(fileURLToPath(import.meta.url));
const { JudgePool } = await import(path.join(here, "dist/judge/JudgePool.js"));
const input = JSON.parse(readFileSync(0, "utf8"));
const pool = await JudgePool.start({ workers: 1, allowUnsandboxed: input.allowUnsandboxed });
const verdicts = [];
try {
    for (const c of input.cases) verdicts.push(await pool.judge({ template: c.template, bindings: c.bindings, code: c.code, ...(c.language ? { language: c.language } : {}) }));
} finally {
    await pool.close();
}
process.stdout.write(JSON.stringify({ isolation: pool.isolation, verdicts }));
`;

// Refuses Landlock's three calls with ENOSYS (a kernel without it) for the judge and all it starts.
const NO_LANDLOCK = `import errno, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src/judge/python"))
from eddy_sandbox import isolation as iso
p = iso._Prog()
for nr in (444, 445, 446):
    p.on(nr, iso._RET_ERRNO | errno.ENOSYS)
p.op(iso._RET, 0, 0, iso._RET_ALLOW)
iso.apply_seccomp(p.bytes())
os.execv(sys.argv[1], sys.argv[1:])
`;

const cacheHome = (who: string) => path.join(copy, `cache-${who}`);
const factorFile = (who: string) => path.join(cacheHome(who), "eddy", "host-factor.json");
const factorText = () => JSON.stringify({ version: 1, machines: { [key]: { factor: 1, measuredAt: "2025-01-01T00:00:00Z" } } });

function judge(s: Setting, cases: Case[]): Run {
    const template = { ...fixtureTemplate("sum_range", { budget: { timeMs: 2000, memoryMb: 128 }, randomInputs: 5 }), id: "fallback_files", oracleFile: path.join(copy, "oracles", "sum_range.py") };
    const input = JSON.stringify({
        allowUnsandboxed: s.mode === "none",
        cases: cases.map((c) => ({ template: { ...template, oracleHash: `${c.name}-${JSON.stringify(s)}-${MARKER}` }, bindings, code: c.code, language: c.language }))
    });
    const env = ["PATH=/usr/bin:/bin", `EDDY_PYTHON=${PYTHON}`, `HOME=${copy}`, `XDG_CACHE_HOME=${cacheHome(s.who)}`, ...(s.mode === "none" ? ["EDDY_JUDGE_NO_NAMESPACES=1"] : [])];
    const command = [...(s.landlock === false ? [PYTHON, path.join(copy, "no-landlock.py")] : []), process.execPath, path.join(copy, "driver.mjs")];
    const [bin, ...args] = s.who === "nobody" ? ["runuser", "-u", "nobody", "--", "env", "-i", ...env, ...command] : ["env", "-i", ...env, ...command];
    const r = spawnSync(bin!, args, { input, encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`driver failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout) as Run;
}

/** Whatever carries the marker of `tag` under the shared folders (eddy's own scratch folders included). */
function leftovers(tag: string): string[] {
    const r = spawnSync("find", [...SHARED, "-xdev", "-maxdepth", "6", "-name", `*${MARKER}-${tag}*`], { encoding: "utf8" });
    return r.stdout.split("\n").filter(Boolean);
}

function attacks(s: Setting, tag: string): Case[] {
    const languages = runtimes ? (["javascript", "ruby", "php"] as const) : [];
    return [
        { name: "host factor", code: hostFactor(factorFile(s.who)) },
        { name: "leave", code: leave(tag) },
        ...languages.map((language): Case => ({ name: `leave (${language})`, code: foreign(language, tag, factorFile(s.who)), language })),
        { name: "find", code: find(tag) },
        { name: "correct", code: CORRECT }
    ];
}

describe.skipIf(!canRun)("the no-sandbox mode's files (issue #43)", () => {
    beforeAll(() => {
        copy = mkdtempSync(path.join(tmpdir(), "eddy-files-copy-"));
        chmodSync(copy, 0o755);
        cpSync(path.join(root, "dist"), path.join(copy, "dist"), { recursive: true });
        cpSync(path.join(root, "src/judge/python"), path.join(copy, "src/judge/python"), { recursive: true });
        cpSync(path.join(root, "src/languages"), path.join(copy, "src/languages"), { recursive: true });
        cpSync(path.join(root, "package.json"), path.join(copy, "package.json"));
        cpSync(path.join(here, "fixtures/oracles"), path.join(copy, "oracles"), { recursive: true });
        writeFileSync(path.join(copy, "driver.mjs"), DRIVER);
        writeFileSync(path.join(copy, "no-landlock.py"), NO_LANDLOCK);
        symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
        key = execFileSync(PYTHON, ["-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); from eddy_judge.budget import machine_key; print(machine_key())", path.join(copy, "src/judge/python")], { encoding: "utf8" }).trim();
        for (const who of ["root", "nobody"]) {
            mkdirSync(path.dirname(factorFile(who)), { recursive: true });
            writeFileSync(factorFile(who), factorText());
        }
        execFileSync("chown", ["-R", "-h", "nobody:nogroup", copy]);
        // root's cache: owned by root, but writable by anyone (Landlock must hold where permissions would not).
        execFileSync("chown", ["-R", "root:root", cacheHome("root")]);
        chmodSync(path.dirname(factorFile("root")), 0o777);
        chmodSync(factorFile("root"), 0o666);
    });
    afterAll(() => {
        spawnSync("find", [...SHARED, "-xdev", "-maxdepth", "6", "-name", `*${MARKER}*`, "-prune", "-exec", "rm", "-rf", "{}", "+"]);
        if (copy) rmSync(copy, { recursive: true, force: true });
    });

    /** The verdicts are all passed (the hostile ones return the right sum whatever they managed), the
     * stored factor is as it was and still used, and nothing of the answers' is left anywhere. */
    const harmless = (s: Setting, run: Run, cases: Case[], tag: string) => {
        const shown = run.verdicts.map((v, i) => `${cases[i]!.name}: ${v.category} ${v.detail}`);
        expect(shown.filter((line) => !line.includes(": passed ")), shown.join("\n")).toEqual([]);
        expect(readFileSync(factorFile(s.who), "utf8")).toBe(factorText());
        expect([run.isolation.cpuFactor, run.isolation.cpuFactorSource]).toEqual([1, "cache"]);
        expect(leftovers(tag)).toEqual([]);
    };

    for (const who of ["root", "nobody"] as const)
        it.runIf(hasLandlock)(`without a sandbox, as ${who}: Landlock keeps every write in the answer's own folder, which goes with it`, () => {
            const s: Setting = { who, mode: "none" };
            const tag = `none-${who}`;
            const cases = attacks(s, tag);
            const run = judge(s, cases);
            expect(run.isolation.sandboxed).toBe(false);
            expect(run.isolation.level).toMatch(/^NO-SANDBOX\+.*\+landlock$/);
            expect(run.isolation.mechanism).toMatch(/Landlock \(ABI \d+\)/);
            expect(run.isolation.notes.join(" ")).toMatch(/Landlock \(ABI \d+\): each candidate may create, write and remove files only in its own working folder/);
            expect(run.isolation.notes.join(" ")).not.toMatch(/write to files the user can write/);
            if (runtimes) expect(cases.filter((c) => c.language)).toHaveLength(3);
            harmless(s, run, cases, tag);
        }, 300_000);

    for (const who of ["root", "nobody"] as const)
        it(`with bubblewrap, as ${who}: the same answers are contained, and pass`, () => {
            const s: Setting = { who, mode: "bwrap" };
            const tag = `bwrap-${who}`;
            const cases = attacks(s, tag);
            const run = judge(s, cases);
            expect(run.isolation.sandboxed, run.isolation.notes.join("; ")).toBe(true);
            expect(run.isolation.level).not.toContain("landlock");
            harmless(s, run, cases, tag);
        }, 300_000);

    it("without Landlock (its calls refused), as root: the mode works and says so, and what an answer's uid left in the shared folders is removed after it", () => {
        const s: Setting = { who: "root", mode: "none", landlock: false };
        const tag = "nolandlock-root";
        const cases = attacks(s, tag).filter((c) => c.name !== "host factor");
        const run = judge(s, cases);
        expect(run.isolation.sandboxed).toBe(false);
        expect(run.isolation.level).not.toContain("landlock");
        expect(run.isolation.mechanism).toMatch(/NO Landlock/);
        expect(run.isolation.notes.join(" ")).toMatch(/NO Landlock on this kernel.*what a candidate's uid leaves in shared folders .* is removed after it/);
        const shown = run.verdicts.map((v, i) => `${cases[i]!.name}: ${v.category} ${v.detail}`);
        expect(shown.filter((line) => !line.includes(": passed ")), shown.join("\n")).toEqual([]);
        expect(leftovers(tag)).toEqual([]);
    }, 300_000);

    it("without Landlock (its calls refused), as nobody: the mode works, and the report and notes say the user's files are writable", () => {
        const run = judge({ who: "nobody", mode: "none", landlock: false }, [{ name: "correct", code: CORRECT }]);
        expect(run.verdicts.map((v) => v.category)).toEqual(["passed"]);
        expect(run.isolation.level).toMatch(/^NO-SANDBOX\+rlimits\+seccomp$/);
        expect(run.isolation.mechanism).toMatch(/NO Landlock/);
        expect(run.isolation.notes.join(" ")).toMatch(/NO Landlock on this kernel.*stays for later answers/);
        expect(run.isolation.notes.join(" ")).toMatch(/write to files the user can write/);
    }, 300_000);
});
