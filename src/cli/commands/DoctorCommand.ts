import { execFileSync } from "node:child_process";
import os from "node:os";
import type { Command } from "commander";
import type { IsolationReport } from "../../judge/types.js";
import { minPython } from "../../judge/worker/PythonWorker.js";
import { missingRuntime } from "../../judge/JudgePool.js";
import { LANGUAGE_INFO, LANGUAGES, type Language } from "../../languages/languages.js";
import { oneLine } from "../../util/errors.js";
import { safeTerminalLine } from "../../util/safeText.js";
import { renderPairs } from "../../report/terminalTable.js";
import { serverOffers, type Offer } from "../../inference/backends.js";
import { MESSAGE_WIDTH, wrapText } from "../../util/textWidth.js";

/** What `eddy doctor` finds. */
export interface DoctorReport {
    node: string;
    python3: string | null;
    platform: string;
    cpuCores: number;
    /** GPU backends node-llama-cpp has binaries for and can use here. */
    gpuBackendsFound: string[];
    /** The backend `--gpu auto` picks. */
    gpuWouldUse: string;
    devices: string[];
    llamaCppRelease?: string;
    nodeLlamaCppVersion?: string;
    /** Auto-tuned thread count and the measurements behind it (on eddy's tiny model). */
    threads?: { chosen: number; trials: { threads: number; tokensPerSecond: number }[] };
    /** Judge isolation level, from the judge's own probe. */
    isolation?: IsolationReport;
    /** Answer languages: the runtime each needs and where the judge found it (null: not installed). */
    languages?: { language: Language; runtime: string; path: string | null; package: string | null }[];
    /** With --base-url: what the server there offers (or why it cannot be asked). */
    server?: Offer | { source: string; error: string };
    problems: string[];
}

/** `eddy doctor`: the machine as eddy sees it. */
export function registerDoctorCommand(program: Command): void {
    program
        .command("doctor")
        .description("Check the machine: Node, Python, GPU backends, thread choice, judge isolation")
        .option("--json", "print JSON to stdout")
        .option("--python <path>", "Python interpreter the judge would use", "python3")
        .option("--base-url <url>", "also ask an OpenAI-compatible server what it serves (--backend server)")
        .addHelpText("after", "\nExamples:\n  $ eddy doctor\n  $ eddy doctor --json\n  $ eddy doctor --base-url http://127.0.0.1:8080/v1")
        .action(async (opts: { json?: boolean; python: string; baseUrl?: string }) => {
            const report = await diagnose(opts.python);
            if (opts.baseUrl !== undefined) {
                try {
                    report.server = await serverOffers(opts.baseUrl);
                } catch (err) {
                    report.server = { source: opts.baseUrl, error: oneLine(err) };
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
                ["GPU backends", report.gpuBackendsFound.length ? report.gpuBackendsFound.join(", ") : "none (CPU only)"],
                ["would use", report.gpuWouldUse + (report.devices.length ? ` (${report.devices.join(", ")})` : "")],
                ["llama.cpp", `${report.llamaCppRelease ?? "?"} via node-llama-cpp ${report.nodeLlamaCppVersion ?? "?"}`],
                ["threads", report.threads ? `${report.threads.chosen} (measured: ${report.threads.trials.map((t) => `${t.threads}→${Math.round(t.tokensPerSecond)} tok/s`).join(", ")})` : "?"],
                ["judge isolation", iso ? (iso.sandboxed ? `sandboxed (${iso.level})` : `NO SANDBOX: answers run WITHOUT a sandbox (${iso.level})`) : "unknown (judge probe not available)"],
                ["judge sandbox", iso ? iso.mechanism : "unknown"],
                ["judge CPU budgets", iso ? `CPU time, scaled by this machine's speed (factor ${iso.cpuFactor})` : "unknown"]
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

async function diagnose(python: string): Promise<DoctorReport> {
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
        gpuBackendsFound: [],
        gpuWouldUse: "cpu",
        devices: [],
        problems
    };
    try {
        const { getLlamaGpuTypes } = await import("node-llama-cpp");
        report.gpuBackendsFound = (await getLlamaGpuTypes("supported")).filter((g): g is Exclude<typeof g, false> => g !== false);
    } catch (err) {
        problems.push(`cannot list GPU backends: ${oneLine(err)}`);
    }
    // Load eddy's tiny model through the real backend (in its child process): shows what --gpu auto
    // picks and measures the thread choice, without risking this process.
    try {
        const { ensureTinyModels } = await import("../../inference/gguf/tinyModel.js");
        const { createLlamaBackend } = await import("../../inference/llama/LlamaBackend.js");
        const tiny = ensureTinyModels();
        const backend = await createLlamaBackend({ modelPath: tiny.f32, gpu: "auto", sequences: 1, onWarning: () => {} });
        const meta = await backend.metadata();
        await backend.close();
        report.gpuWouldUse = String(meta.gpu ?? "cpu");
        report.devices = meta.devices ?? [];
        if (meta.llamaCppRelease) report.llamaCppRelease = meta.llamaCppRelease;
        if (meta.nodeLlamaCppVersion) report.nodeLlamaCppVersion = meta.nodeLlamaCppVersion;
        const trials = meta.threadTrials as { threads: number; tokensPerSecond: number }[] | undefined;
        if (meta.threads !== undefined) report.threads = { chosen: meta.threads, trials: trials ?? [] };
    } catch (err) {
        problems.push(`llama.cpp check failed: ${oneLine(err)}`);
    }
    try {
        const { probeIsolation } = await import("../../judge/isolation.js");
        const { runtimes, ...isolation } = await probeIsolation(python);
        report.isolation = isolation;
        report.languages = LANGUAGES.map((language) => {
            const info = LANGUAGE_INFO[language];
            const found = info.runtime === null ? python : (runtimes[language] ?? null);
            if (found === null) problems.push(missingRuntime(language, runtimes)!);
            return { language, runtime: info.runtime ?? python, path: found, package: info.package };
        });
        if (!report.isolation.sandboxed)
            problems.push(
                `no sandbox here (${report.isolation.notes[0] ?? "bubblewrap unavailable"}): the judge runs answers WITHOUT one and refuses to unless --allow-unsandboxed (or EDDY_ALLOW_UNSANDBOXED=1) is given`
            );
    } catch (err) {
        problems.push(`judge isolation probe failed: ${oneLine(err)}`);
    }
    return report;
}
