import { execFileSync } from "node:child_process";
import os from "node:os";
import type { Command } from "commander";
import type { IsolationReport, JudgeEnvironment } from "../../judge/types.js";
import { interpreterLine, numpyLine, NUMPY, packagesLine } from "../../judge/environment.js";
import { pythonCommand } from "../../judge/workerScript.js";
import { minPython } from "../../judge/worker/PythonWorker.js";
import { missingRuntime } from "../../judge/JudgePool.js";
import { languageInfo, LANGUAGES, type Language } from "../../languages/languages.js";
import { oneLine } from "../../util/errors.js";
import { safeTerminalLine } from "../../util/safeText.js";
import { renderPairs } from "../../report/terminalTable.js";
import { askOffers, checkMachine, OFFER_OPTIONS, type Offer } from "../../inference/backends.js";
import { MESSAGE_WIDTH, wrapText } from "../../util/textWidth.js";

/** What `eddy doctor` finds. */
export interface DoctorReport {
    node: string;
    python3: string | null;
    platform: string;
    cpuCores: number;
    /** Judge isolation level, from the judge's own probe. */
    isolation?: IsolationReport;
    /** The judge's interpreter (path, version, implementation) and the third-party packages it offers answers, from the judge's own probe. */
    judgePython?: JudgeEnvironment;
    /** Answer languages: the runtime each needs and where the judge found it (null: not installed). */
    languages?: { language: Language; runtime: string; path: string | null; package: string | null }[];
    /** With --base-url: what the server there offers (or why it cannot be asked). */
    server?: Offer | { source: string; error: string };
    problems: string[];
    /** What each backend that checks itself found (node-llama-cpp's GPU backends, the `--gpu auto` choice, the thread choice, …), its fields as it names them. */
    [backendField: string]: unknown;
}

/** `eddy doctor`: the machine as eddy sees it. */
export function registerDoctorCommand(program: Command): void {
    const cmd = program
        .command("doctor")
        .description("Check the machine: Node, Python, GPU backends, thread choice, judge isolation")
        .option("--json", "print JSON to stdout")
        .option("--python <path>", "Python interpreter the judge would use (default: $EDDY_PYTHON, else the distribution's /usr/bin/python3 when 3.11+, else python3 on PATH)");
    // Where a backend that serves models is (--base-url): also ask it what it offers.
    for (const o of OFFER_OPTIONS) cmd.option(o.flags, `also ask: ${o.description}`);
    cmd.addHelpText("after", "\nExamples:\n  $ eddy doctor\n  $ eddy doctor --json\n  $ eddy doctor --base-url http://127.0.0.1:8080/v1")
        .action(async (opts: { json?: boolean; python?: string; [where: string]: unknown }) => {
            const { report, lines: backendLines } = await diagnose(pythonCommand(opts.python));
            const where = Object.fromEntries(OFFER_OPTIONS.filter((o) => opts[o.key] !== undefined).map((o) => [o.key, opts[o.key]]));
            if (Object.keys(where).length > 0) {
                try {
                    report.server = await askOffers(where);
                } catch (err) {
                    report.server = { source: Object.values(where).map(String).join(" "), error: oneLine(err) };
                    report.problems.push(`server: ${oneLine(err)}`);
                }
            }
            if (opts.json) {
                process.stdout.write(JSON.stringify(report, null, 2) + "\n");
                if (report.python3 === null) process.exitCode = 1;
                return;
            }
            const iso = report.isolation;
            const lines: [string, string][] = [
                ["node", report.node],
                ["python3", report.python3 ?? "NOT FOUND"],
                ["platform", `${report.platform}, ${report.cpuCores} cores`],
                ...backendLines,
                ["judge isolation", iso ? (iso.sandboxed ? `sandboxed (${iso.level})` : `NO SANDBOX: answers run WITHOUT a sandbox (${iso.level})`) : "unknown (judge probe not available)"],
                ["judge sandbox", iso ? iso.mechanism : "unknown"],
                ["judge CPU budgets", iso ? `CPU time, scaled by this machine's speed (factor ${iso.cpuFactor})` : "unknown"],
                ["judge Python", report.judgePython ? interpreterLine(report.judgePython) : "unknown (judge probe not available)"],
                ["judge packages", report.judgePython ? `${report.judgePython.packages[NUMPY] ? "" : `${numpyLine(report.judgePython)}; `}answers may import ${packagesLine(report.judgePython)}` : "unknown (judge probe not available)"]
            ];
            const srv = report.server;
            if (srv)
                lines.push([
                    "server",
                    "error" in srv
                        ? `${srv.source}: ${srv.error}`
                        : `${srv.engine} at ${srv.source}: ${srv.models.map((m) => m.id).join(", ") || "no models"}${Object.keys(srv.facts).length ? ` (${Object.entries(srv.facts).map(([k, v]) => `${k} ${v}`).join(", ")})` : ""}; reproducible: ${srv.reproducible.known ? "yes" : "not known"} (${srv.reproducible.why})`
                ]);
            lines.push([
                "languages",
                (report.languages ?? [])
                    .map((l) => `${l.language} (${l.path ? `${l.runtime}: ${l.path}` : `${l.runtime} NOT INSTALLED: apt-get install ${l.package}`})`)
                    .join(", ") || "unknown (judge probe not available)"
            ]);
            const notes = (iso?.notes ?? []).map((note): [string, string] => ["", note]);
            for (const line of renderPairs([...lines, ...notes])) process.stdout.write(line + "\n");
            for (const p of report.problems) process.stdout.write(wrapText(`problem: ${safeTerminalLine(p)}`, MESSAGE_WIDTH, "         ") + "\n");
            // Without Python nothing can be judged: a script that checks `eddy doctor` must see it fail.
            if (report.python3 === null) process.exitCode = 1;
        });
}

async function diagnose(python: string): Promise<{ report: DoctorReport; lines: [string, string][] }> {
    const problems: string[] = [];
    let py: string | null = null;
    try {
        py = execFileSync(python, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    } catch {
        problems.push(`${python} not found: the judge needs Python ${minPython()}+ (Debian/Ubuntu: sudo apt-get install python3)`);
    }
    const report: DoctorReport = {
        node: process.version,
        python3: py,
        platform: `${process.platform}-${process.arch}`,
        cpuCores: os.availableParallelism(),
        problems
    };
    // What each backend finds here (node-llama-cpp: its GPU backends, the --gpu auto choice, the thread choice).
    const lines: [string, string][] = [];
    for (const { check } of await checkMachine()) {
        Object.assign(report, check.report);
        lines.push(...check.lines);
        problems.push(...check.problems);
    }
    try {
        const { probeIsolation } = await import("../../judge/isolation.js");
        const { runtimes, environment, ...isolation } = await probeIsolation(python);
        report.isolation = isolation;
        report.judgePython = environment;
        if (!environment.packages[NUMPY])
            problems.push(
                `the judge's Python (${environment.executable}) has no numpy: answers that import it (EvalPlus's do) fail with ModuleNotFoundError; ${environment.executable.startsWith("/usr/") ? "install Debian's python3-numpy (what scripts/setup.sh does)" : "install numpy for that interpreter, or point EDDY_PYTHON at one that has it"}`
            );
        report.languages = LANGUAGES.map((language) => {
            const rt = languageInfo(language).runtime;
            const found = rt === null ? python : (runtimes[language] ?? null);
            if (found === null) problems.push(missingRuntime(language, runtimes)!);
            return { language, runtime: rt?.binary ?? python, path: found, package: rt?.package ?? null };
        });
        if (!report.isolation.sandboxed)
            problems.push(
                `no sandbox here (${report.isolation.notes[0] ?? "bubblewrap unavailable"}): the judge runs answers WITHOUT one and refuses to unless --allow-unsandboxed (or EDDY_ALLOW_UNSANDBOXED=1) is given`
            );
    } catch (err) {
        problems.push(`judge isolation probe failed: ${oneLine(err)}`);
    }
    return { report, lines };
}
