/**
 * Install kit size and offline install time. Builds a CPU-only kit without models from the current
 * tree (it packs the dist/ built now: `npm run build` first), then, in a network namespace with no
 * network where one is available, extracts it and runs install.sh in an empty HOME with an empty npm
 * cache. Prints one JSON object. Baselines measured in the same run: the production tree before
 * pruning (`pruned_vs_unpruned`), and extraction alone (`install_vs_extract`); goals from issue #15:
 * under 150 MB and under 2 minutes (`size_vs_goal`, `install_vs_goal`).
 *
 *   npx tsx scripts/bench-kit.ts [--platform linux-x64] [--gzip-level 6] [--doctor]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildKit } from "../src/kit/buildKit.js";

function arg(name: string): string | undefined {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
}

const GOAL_BYTES = 150e6;
const GOAL_SECONDS = 120;
const work = mkdtempSync(path.join(tmpdir(), "eddy-bench-kit-"));
const mb = (n: number): number => Math.round(n / 1e5) / 10;
const s = (ms: number): number => Math.round(ms / 100) / 10;

function sh(script: string, netns: string[]): number {
    const env = [`PATH=${path.dirname(process.execPath)}:${process.env.PATH}`, `HOME=${work}/home`, `npm_config_cache=${work}/npm-cache`];
    const t = performance.now();
    const r = spawnSync(netns[0] ?? "env", [...netns.slice(1), ...(netns.length ? ["env"] : []), "-i", ...env, "sh", "-c", script], { cwd: work, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`bench-kit: ${script} failed:\n${r.stdout}\n${r.stderr}`);
    return performance.now() - t;
}

try {
    const t0 = performance.now();
    const kit = await buildKit({ out: path.join(work, "kit.tgz"), platform: arg("platform") ?? "linux-x64", gzipLevel: Number(arg("gzip-level") ?? 6) });
    const buildMs = performance.now() - t0;
    mkdirSync(path.join(work, "home"));
    mkdirSync(path.join(work, "npm-cache"));
    const netns = spawnSync("unshare", ["-n", "true"]).status === 0 ? ["unshare", "-n", "--"] : [];
    // Baseline: extraction alone, into a folder of its own.
    mkdirSync(path.join(work, "baseline"));
    const extractOnlyMs = sh(`cd baseline && tar xzf ${JSON.stringify(kit.archive)}`, netns);
    rmSync(path.join(work, "baseline"), { recursive: true });
    const extractMs = sh(`tar xzf ${JSON.stringify(kit.archive)}`, netns);
    const installMs = sh(`./${kit.folder}/install.sh --prefix ${JSON.stringify(path.join(work, "prefix"))}${process.argv.includes("--doctor") ? "" : " --no-doctor"} >/dev/null`, netns);
    const totalMs = extractMs + installMs;
    console.log(
        JSON.stringify(
            {
                kit: {
                    platform: kit.target.label,
                    archive_mb: mb(kit.archiveBytes),
                    unpacked_mb: mb(kit.unpackedBytes),
                    files: kit.files,
                    dependencies_mb: mb(kit.treeBytes),
                    dependencies_unpruned_mb: mb(kit.unprunedTreeBytes),
                    pruned_vs_unpruned: Math.round((kit.treeBytes / kit.unprunedTreeBytes) * 1000) / 1000,
                    size_vs_goal: Math.round((kit.archiveBytes / GOAL_BYTES) * 1000) / 1000,
                    build_s: s(buildMs)
                },
                install: {
                    offline: netns.length ? "network namespace without network" : "no namespace available: network not cut",
                    extract_s: s(extractMs),
                    install_sh_s: s(installMs),
                    doctor: process.argv.includes("--doctor"),
                    total_s: s(totalMs),
                    extract_only_baseline_s: s(extractOnlyMs),
                    install_vs_extract: Math.round((totalMs / extractOnlyMs) * 100) / 100,
                    install_vs_goal: Math.round((totalMs / 1000 / GOAL_SECONDS) * 1000) / 1000
                }
            },
            null,
            2
        )
    );
} finally {
    rmSync(work, { recursive: true, force: true });
}
