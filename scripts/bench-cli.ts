/**
 * What every eddy command pays before it does anything: the CLI's start (`eddy --version`) against
 * a bare `node -e 0` measured in the same run, and starting the judge's Python as named (a version
 * manager's shim, when there is one) against the interpreter eddy resolves it to once per process.
 * Prints one JSON object: medians in ms and the ratios.
 *
 *   npx tsx scripts/bench-cli.ts [--repeats 7]
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { resolveInterpreter } from "../src/judge/workerScript.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "dist/cli/bin.js");
const i = process.argv.indexOf("--repeats");
const REPEATS = i >= 0 ? Number(process.argv[i + 1]) : 7;

function median(xs: number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)]!;
}

/** Median wall time of a command, interleaved with the others so that load falls on all alike. */
function timeAll(commands: Record<string, [string, string[]]>): Record<string, number> {
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
    for (let r = 0; r < REPEATS; r++)
        for (const [name, [cmd, args]] of Object.entries(commands)) {
            const t0 = performance.now();
            const p = spawnSync(cmd, args, { stdio: "ignore" });
            if (p.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${p.status}`);
            times[name]!.push(performance.now() - t0);
        }
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v))]));
}

const named = process.env.EDDY_PYTHON || "python3";
const resolved = resolveInterpreter(named);
const t = timeAll({
    node: [process.execPath, ["-e", "0"]],
    cli: [process.execPath, [BIN, "--version"]],
    python_named: [named, ["-I", "-c", "pass"]],
    python_resolved: [resolved, ["-I", "-c", "pass"]]
});
process.stdout.write(
    JSON.stringify(
        {
            repeats: REPEATS,
            load: Number(os.loadavg()[0]!.toFixed(2)),
            node_start_ms: t.node,
            cli_start_ms: t.cli,
            cli_vs_node: Number((t.cli! / t.node!).toFixed(2)),
            python: { named, resolved },
            python_named_ms: t.python_named,
            python_resolved_ms: t.python_resolved,
            named_vs_resolved: Number((t.python_named! / t.python_resolved!).toFixed(2))
        },
        null,
        2
    ) + "\n"
);
