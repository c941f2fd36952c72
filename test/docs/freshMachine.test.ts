import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanTmp, ROOT, tmpDir } from "../run/helpers.js";

/**
 * A machine without bubblewrap, made from this one: as root, in a private mount namespace, an empty
 * file is bind-mounted over `bwrap` (so `command -v bwrap` finds nothing) and a stand-in over
 * `apt-get` (the test machine has no network: either an offline apt-get that fails as a real one does
 * without a mirror, or a local "mirror" that installs the real bwrap binary into the hidden slot).
 * README's first command runs there as written, and so does every command it prints.
 */

afterAll(cleanTmp);

const which = (tool: string): string => spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
const BWRAP = which("bwrap");
const APT = which("apt-get");

/** Why this machine cannot make the other one (the tests are then skipped, saying so). */
function cannot(): string | undefined {
    if (process.getuid?.() !== 0) return "needs root (bind mounts over /usr/bin in a private mount namespace)";
    if (spawnSync("unshare", ["--mount", "true"]).status !== 0) return "`unshare --mount` is not available here";
    if (!BWRAP) return "bubblewrap is not installed here (nothing to hide; the mirror stand-in needs its binary)";
    if (!APT) return "no apt-get here to stand in for";
    return undefined;
}
const SKIP = cannot();

const README = readFileSync(path.join(ROOT, "README.md"), "utf8");
const FIRST_COMMAND = /```bash\n([^\n]*)/.exec(README)![1]!.replace(/\s+#\s.*$/, "").trim();

interface Machine {
    /** Runs `command` in bash on the bwrap-less machine, from `cwd`. */
    run(command: string, cwd: string): { code: number | null; out: string; lines: string[] };
    /** Calls the stand-in apt-get received. */
    aptCalls(): string[];
}

/** A machine without bwrap whose apt-get is `apt` ("offline": fails like apt-get without a mirror; "mirror": installs bwrap). */
function machine(apt: "offline" | "mirror"): Machine {
    const dir = tmpDir("eddy-fresh-machine-");
    const slot = path.join(dir, "bwrap-slot");
    writeFileSync(slot, ""); // an empty, non-executable file where bwrap was
    copyFileSync(BWRAP, path.join(dir, "bubblewrap.bin")); // the "mirror"'s package contents
    const log = path.join(dir, "apt-calls");
    writeFileSync(log, "");
    const fake = path.join(dir, "apt-get");
    writeFileSync(
        fake,
        `#!/bin/sh\necho "apt-get $*" >> '${log}'\n` +
            (apt === "offline"
                ? `echo "E: Failed to fetch http://deb.debian.org/debian/dists/stable/InRelease  Temporary failure resolving 'deb.debian.org'" >&2\nexit 100\n`
                : // update: nothing to fetch; install: bubblewrap's binary into its place (the hidden slot).
                  `case " $* " in *" install "*bubblewrap*) cat '${path.join(dir, "bubblewrap.bin")}' > '${BWRAP}' && chmod 755 '${BWRAP}' ;; esac\nexit 0\n`)
    );
    chmodSync(fake, 0o755);
    return {
        run(command, cwd) {
            const setup = `mount --bind '${slot}' '${BWRAP}' && mount --bind '${fake}' '${APT}' && cd '${cwd}' && exec bash -c "$0"`;
            const { EDDY_BWRAP: _b, EDDY_DB: _d, EDDY_ALLOW_UNSANDBOXED: _u, EDDY_JUDGE_NO_NAMESPACES: _n, ...env } = process.env;
            const r = spawnSync("unshare", ["--mount", "--", "sh", "-c", setup, command], { env, encoding: "utf8", timeout: 240_000 });
            const out = `${r.stdout}${r.stderr}`;
            return { code: r.status, out, lines: out.split("\n").filter((l) => l.trim() !== "") };
        },
        aptCalls: () => readFileSync(log, "utf8").split("\n").filter(Boolean)
    };
}

/** A copy of the repository's files README's first command runs (the setup script and the package file). */
function repoCopy(): string {
    const copy = tmpDir("eddy-fresh-repo-");
    mkdirSync(path.join(copy, "scripts"));
    for (const f of ["scripts/setup.sh", "package.json", "README.md"]) copyFileSync(path.join(ROOT, f), path.join(copy, f));
    chmodSync(path.join(copy, "scripts/setup.sh"), 0o755);
    return copy;
}

/** The demo `npm start` runs, small: the command line a user would type for it from the repository. */
const DEMO = `"${process.execPath}" "${BIN}" demo --instances 1 --rounds 1 --templates list_every_kth`;

describe.skipIf(SKIP !== undefined)(`a machine without bubblewrap${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
    it("the stand-in machine has no bwrap to run (the premise)", () => {
        const r = machine("offline").run("sh -c 'command -v bwrap' || bwrap --version 2>/dev/null || echo none", tmpDir());
        expect(r.lines.at(-1)).toBe("none");
    });

    it("README's first command, offline: it tries apt-get, then ends with one eddy line naming the one command; that command, run as printed once a mirror is reachable, installs bubblewrap", () => {
        expect(FIRST_COMMAND).toMatch(/^scripts\/setup\.sh && npm start$/);
        const copy = repoCopy();
        const offline = machine("offline");
        const r = offline.run(FIRST_COMMAND, copy);
        expect(r.code, r.out).not.toBe(0);
        expect(offline.aptCalls()[0]).toBe("apt-get update -qq");
        const last = r.lines.at(-1)!;
        expect(last).toBe(
            "eddy: could not install bubblewrap (apt-get failed, see above); once this machine reaches a Debian mirror, run this, then scripts/setup.sh again: apt-get update && apt-get install -y bubblewrap"
        );
        // Every line of its own is an eddy line; apt-get's own error comes before it, as apt-get wrote it.
        expect(r.lines.filter((l) => l.startsWith("eddy")).every((l) => l.startsWith("eddy: "))).toBe(true);
        expect(r.out).not.toMatch(/namespaces/);
        // The printed command, as printed, on the same machine once its apt-get reaches a mirror.
        const printed = last.split(": ").at(-1)!;
        const online = machine("mirror");
        const installed = online.run(`${printed} && command -v bwrap && bwrap --version`, copy);
        expect(installed.code, installed.out).toBe(0);
        expect(online.aptCalls()).toEqual(["apt-get update", "apt-get install -y bubblewrap"]);
        expect(installed.out).toMatch(/^bubblewrap \d/m);
    });

    it("README's first command with a reachable mirror installs bubblewrap, and the demo then judges in its sandbox", () => {
        const copy = repoCopy();
        // npm is not what is tested here (no registry on this machine): a stand-in records what it was asked.
        const bin = path.join(copy, "fake-bin");
        mkdirSync(bin);
        writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "npm $*" >> '${path.join(copy, "npm-calls")}'\n`);
        chmodSync(path.join(bin, "npm"), 0o755);
        const m = machine("mirror");
        const r = m.run(`PATH='${bin}':"$PATH"; ${FIRST_COMMAND} && command -v bwrap && ${DEMO} --db "$PWD/demo.db"`, copy);
        expect(r.code, r.out).toBe(0);
        expect(m.aptCalls()).toEqual(["apt-get update -qq", "apt-get install -y bubblewrap -qq"]);
        expect(r.out).toMatch(/^eddy: installing bubblewrap \(apt-get\)$/m);
        expect(readFileSync(path.join(copy, "npm-calls"), "utf8")).toBe("npm install --no-audit --no-fund\nnpm start\n");
        // The demo's study was judged in bubblewrap, not refused and not unsandboxed.
        expect(r.out).not.toMatch(/no sandbox|WITHOUT a sandbox/);
        expect(r.out).toMatch(/reference/);
    });

    it("the walkthrough's set-up (scripts/setup.sh --system, what test/docs/examples.ts runs first) installs bubblewrap and nothing else, or stops at the one command", () => {
        const copy = repoCopy();
        const online = machine("mirror");
        const r = online.run("scripts/setup.sh --system && bwrap --version", copy);
        expect(r.code, r.out).toBe(0);
        expect(online.aptCalls()).toEqual(["apt-get update -qq", "apt-get install -y bubblewrap -qq"]);
        const offline = machine("offline").run("scripts/setup.sh --system", copy);
        expect(offline.code).toBe(1);
        expect(offline.lines.at(-1)).toMatch(/^eddy: could not install bubblewrap .*: apt-get update && apt-get install -y bubblewrap$/);
        expect(machine("offline").run("scripts/setup.sh --sytsem", copy).out).toBe("eddy: unknown option '--sytsem'; scripts/setup.sh takes --check or --system\n");
    });

    it("the demo without bubblewrap refuses naming the missing bwrap (not namespaces) and the command setup names; run as printed, it makes the demo run", () => {
        const cwd = tmpDir("eddy-fresh-demo-");
        const r = machine("offline").run(`${DEMO} --db "$PWD/demo.db"`, cwd);
        expect(r.code, r.out).toBe(1);
        expect(r.out).toMatch(/^eddy: no sandbox is possible here: bubblewrap \(bwrap\) is not installed;/m);
        expect(r.out).not.toMatch(/namespaces/);
        // The refusal ends in the command on a line of its own: the very command scripts/setup.sh names.
        const hint = r.lines.at(-1)!;
        // (Messages wrap at 100 columns, continuing indented; read as one line.)
        expect(r.out.replace(/\n {6}/g, " ")).toMatch(/install bubblewrap \(what scripts\/setup\.sh does\) with:\n {2}apt-get install -y bubblewrap\n$/);
        expect(hint).toBe("  apt-get install -y bubblewrap");
        const check = machine("offline").run("scripts/setup.sh --check", repoCopy());
        expect(check.lines.at(-1)).toBe(`eddy: missing: bubblewrap; install with: ${hint.trim()}`);
        // As printed, on the machine whose apt-get reaches a mirror: then the same demo runs.
        const online = machine("mirror");
        const after = online.run(`${hint.trim()} && ${DEMO} --db "$PWD/demo.db"`, cwd);
        expect(after.code, after.out).toBe(0);
        expect(after.out).not.toMatch(/no sandbox/);
    });
});

/**
 * A machine whose Debian python3 has no numpy (issue #44), made from this one the same way: in a
 * private mount namespace, numpy's folder and its package record are covered (an empty folder would
 * still import, as a namespace package: the cover's `__init__.py` fails as a missing module does),
 * and an apt-get stand-in whose "install" of python3-numpy lifts the covers (the real package's files
 * come back).
 */
const SITE = "/usr/lib/python3/dist-packages";
const NUMPY_DIR = `${SITE}/numpy`;
const NUMPY_RECORDS = (() => {
    try {
        return readdirSync(SITE).filter((f) => /^numpy-.*\.(egg|dist)-info$/.test(f)).map((f) => `${SITE}/${f}`);
    } catch {
        return [];
    }
})();
function cannotHideNumpy(): string | undefined {
    if (process.getuid?.() !== 0) return "needs root (a mount over numpy's folder in a private mount namespace)";
    if (spawnSync("unshare", ["--mount", "true"]).status !== 0) return "`unshare --mount` is not available here";
    if (!APT) return "no apt-get here to stand in for";
    if (!BWRAP) return "bubblewrap is not installed here";
    if (spawnSync("/usr/bin/python3", ["-I", "-c", "import numpy"]).status !== 0 || NUMPY_RECORDS.length === 0) return "Debian's python3-numpy is not installed here (nothing to hide)";
    return undefined;
}
const NO_NUMPY_SKIP = cannotHideNumpy();

describe.skipIf(NO_NUMPY_SKIP !== undefined)(`a machine whose Debian python3 has no numpy${NO_NUMPY_SKIP ? ` (skipped: ${NO_NUMPY_SKIP})` : ""}`, () => {
    it("README's first command installs python3-numpy beside the interpreter the judge uses, and an answer that imports numpy then passes in the sandbox", () => {
        const dir = tmpDir("eddy-no-numpy-");
        const log = path.join(dir, "apt-calls");
        writeFileSync(log, "");
        const fake = path.join(dir, "apt-get");
        const covered = [NUMPY_DIR, ...NUMPY_RECORDS];
        writeFileSync(fake, `#!/bin/sh\necho "apt-get $*" >> '${log}'\ncase " $* " in *" install "*python3-numpy*) umount ${covered.map((c) => `'${c}'`).join(" ")} ;; esac\nexit 0\n`);
        chmodSync(fake, 0o755);
        const answer = path.join(dir, "every_kth.py");
        writeFileSync(answer, "import numpy as np\ndef every_kth(values):\n    return [values[int(i)] for i in np.arange(1, len(values), 1)]\n");
        const judge = `"${process.execPath}" "${BIN}" judge -t list_every_kth -p '[1, 1]' -c '${answer}'`;
        const copy = repoCopy();
        const script = [
            ...covered.map((c) => `mount -t tmpfs -o size=16k,mode=755 none '${c}'`),
            `printf 'raise ModuleNotFoundError("No module named %s", name="numpy")\\n' "'numpy'" > '${NUMPY_DIR}/__init__.py'`,
            `mount --bind '${fake}' '${APT}' && cd '${copy}'`,
            // The premise: no numpy for Debian's python3, so an answer that imports it fails, and setup says what is missing.
            `/usr/bin/python3 -I -c 'import numpy' 2>/dev/null && echo "premise: numpy importable"`,
            `${judge} || true`,
            "scripts/setup.sh --check || true",
            "scripts/setup.sh --system",
            "/usr/bin/python3 -I -c 'import numpy; print(\"numpy\", numpy.__version__)'",
            judge
        ].join("\n");
        const { EDDY_DB: _d, EDDY_PYTHON: _p, EDDY_JUDGE_NO_NAMESPACES: _n, ...env } = process.env;
        const r = spawnSync("unshare", ["--mount", "--", "sh", "-c", script], { env, encoding: "utf8", timeout: 240_000 });
        const out = `${r.stdout}${r.stderr}`;
        expect(r.status, out).toBe(0);
        expect(out).not.toMatch(/premise/);
        expect(out).toMatch(/^runtime_error .*No module named 'numpy'/m);
        expect(out).toMatch(/^eddy: missing: python3-numpy; install with: apt-get install -y python3-numpy$/m);
        expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["apt-get update -qq", "apt-get install -y python3-numpy -qq"]);
        expect(out).toMatch(/^eddy: installing python3-numpy \(apt-get\)$/m);
        expect(out).toMatch(/^numpy \d+\.\d+/m);
        expect(out).toMatch(/^passed /m);
    }, 300_000);
});
