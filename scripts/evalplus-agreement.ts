/**
 * eddy's verdicts beside EvalPlus's own on the samples EvalPlus publishes (`npm run
 * evalplus:agreement -- ...`). Reads EvalPlus `*_eval_results.json` files (each holds every sample's
 * solution and EvalPlus's base/plus status), judges the same solutions with eddy over problems
 * `eddy import humaneval|mbpp` imported from the same release file, and prints, per results file:
 * model, dataset, samples, agree, only-eddy-correct, only-EvalPlus-correct, then every disagreement
 * with eddy's verdict and EvalPlus's failing inputs. A sample is correct for EvalPlus when base and
 * plus both pass (as its pass@1 counts it).
 *
 *   tsx scripts/evalplus-agreement.ts --humaneval <imported HumanEval+ folder> --mbpp <imported
 *     MBPP+ folder> --work <scratch folder> [--judge-workers n] [--json <report.json>] <eval_results.json>...
 *
 * Nothing is read from the repository: the results files and the imported folders are named on the
 * command line (EvalPlus's repository and release files are not part of eddy's).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { templateIdForTask } from "../src/import/humaneval/problems.js";

interface Published {
    task_id: string;
    solution: string;
    base_status: string;
    plus_status: string | null;
    base_fail_tests?: unknown[];
    plus_fail_tests?: unknown[];
}

interface Row {
    template: string;
    instance: number;
    round: number;
    category: string;
    detail: string;
}

interface Disagreement {
    task: string;
    round: number;
    eddy: string;
    evalplus: string;
    detail: string;
    evalplusFails: string;
    /** The cause eddy's agreement report files it under, why, and the evidence (src/report/peerEvidence.ts). */
    cause?: string;
    why?: string;
    evidence?: string[];
}

interface Line {
    file: string;
    model: string;
    dataset: string;
    samples: number;
    /** Samples of problems the import skipped (listed with its reason in humaneval-import.json): not judged. */
    notImported: { task: string; samples: number; evalplusCorrect: number; reason: string }[];
    agree: number;
    onlyEddyCorrect: number;
    onlyEvalPlusCorrect: number;
    eddyCorrect: number;
    evalplusCorrect: number;
    seconds: number;
    disagreements: Disagreement[];
}

function args(): { humaneval?: string; mbpp?: string; work: string; workers?: string; json?: string; version?: string; files: string[] } {
    const a = process.argv.slice(2);
    const out: { humaneval?: string; mbpp?: string; work?: string; workers?: string; json?: string; version?: string; files: string[] } = { files: [] };
    for (let i = 0; i < a.length; i++) {
        const v = a[i]!;
        const next = () => {
            const x = a[++i];
            if (x === undefined) throw new Error(`${v} needs a value`);
            return x;
        };
        if (v === "--humaneval") out.humaneval = path.resolve(next());
        else if (v === "--mbpp") out.mbpp = path.resolve(next());
        else if (v === "--work") out.work = path.resolve(next());
        else if (v === "--judge-workers") out.workers = next();
        else if (v === "--json") out.json = path.resolve(next());
        else if (v === "--evalplus-version") out.version = next();
        else if (v.startsWith("--")) throw new Error(`unknown option ${v}`);
        else out.files.push(path.resolve(v));
    }
    if (!out.work || out.files.length === 0) throw new Error("usage: evalplus-agreement --humaneval <folder> --mbpp <folder> --work <folder> <eval_results.json>...");
    return { ...out, work: out.work };
}

const BIN = path.resolve("dist/cli/bin.js");

function eddy(cmd: string[], db: string): string {
    const r = spawnSync(process.execPath, [BIN, ...cmd], { encoding: "utf8", env: { ...process.env, EDDY_DB: db }, maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`eddy ${cmd.join(" ")}: ${r.stderr.trim()}`);
    return r.stdout;
}

/** `meta-llama--Meta-Llama-3-8B_vllm_temp_0.0-sanitized_eval_results.json` → `meta-llama/Meta-Llama-3-8B`. */
function modelOf(file: string): string {
    const base = path.basename(file).replace(/(\.|_)eval_results\.json$/, "");
    return base.replace(/_vllm_temp_[0-9.]+(-sanitized)?$/, "").replace(/^custom_finetuned_models--/, "").replace("--", "/");
}

function short(v: unknown): string {
    const s = JSON.stringify(v) ?? "";
    return s.length > 160 ? s.slice(0, 157) + "..." : s;
}

function judgeFile(file: string, o: ReturnType<typeof args>, db: string): Line {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { eval: Record<string, Published[]> };
    const tasks = Object.keys(doc.eval);
    const dataset = tasks[0]?.startsWith("Mbpp/") ? "mbpp" : "humaneval";
    const templates = dataset === "mbpp" ? o.mbpp : o.humaneval;
    if (!templates) throw new Error(`${file}: ${dataset} samples; name the imported folder with --${dataset}`);
    const model = modelOf(file);
    const name = path.basename(file).replace(/(\.|_)eval_results\.json$/, "");
    const dir = path.join(o.work, dataset);
    mkdirSync(dir, { recursive: true });
    const samples = path.join(dir, `${name}.jsonl`);
    const summary = JSON.parse(readFileSync(path.join(templates, "humaneval-import.json"), "utf8")) as { templates: { taskId: string }[]; skipped: { taskId: string; reason: string }[] };
    const imported = new Set(summary.templates.map((t) => t.taskId));
    const notImported = tasks
        .filter((t) => !imported.has(t))
        .map((t) => ({ task: t, samples: doc.eval[t]!.length, evalplusCorrect: doc.eval[t]!.filter((s) => s.base_status === "pass" && s.plus_status === "pass").length, reason: summary.skipped.find((x) => x.taskId === t)?.reason ?? "not in the imported release" }));
    // EvalPlus's sample layout, its statuses beside it: eddy keeps them with the run.
    const lines: string[] = [];
    for (const t of tasks.filter((x) => imported.has(x))) for (const s of doc.eval[t]!) lines.push(JSON.stringify({ task_id: t, solution: s.solution }));
    writeFileSync(samples, lines.join("\n") + "\n");
    copyFileSync(file, path.join(dir, `${name}.eval_results.json`));
    const t0 = performance.now();
    const run = JSON.parse(eddy(["import", "evalplus-samples", samples, "--templates", templates, "--model", model, "--json", "--no-progress", ...(o.workers ? ["--judge-workers", o.workers] : []), ...(o.version ? ["--evalplus-version", o.version] : [])], db)) as { runId: string };
    const seconds = (performance.now() - t0) / 1000;
    const rows = eddy(["export", run.runId], db)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Row)
        .filter((r) => r.category !== "missing");
    const byKey = new Map(rows.map((r) => [`${r.template}|${r.round}`, r]));
    // The report's cause of each disagreement, with its evidence.
    const agreement = (JSON.parse(eddy(["report", run.runId, "--format", "json"], db)) as { agreement?: { disagreements: { template: string; round: number; cause: string; explanation: string; evidence?: string[] }[] } }).agreement;
    const causeOf = new Map((agreement?.disagreements ?? []).map((d) => [`${d.template}|${d.round}`, d]));
    const line: Line = { file: path.basename(file), model, dataset, samples: 0, notImported, agree: 0, onlyEddyCorrect: 0, onlyEvalPlusCorrect: 0, eddyCorrect: 0, evalplusCorrect: 0, seconds, disagreements: [] };
    for (const t of tasks.filter((x) => imported.has(x))) {
        doc.eval[t]!.forEach((s, n) => {
            line.samples++;
            const r = byKey.get(`${templateIdForTask(t)}|${n}`);
            const theirs = s.base_status === "pass" && s.plus_status === "pass";
            const ours = r?.category === "passed";
            if (ours) line.eddyCorrect++;
            if (theirs) line.evalplusCorrect++;
            if (ours === theirs) {
                line.agree++;
                return;
            }
            if (ours) line.onlyEddyCorrect++;
            else line.onlyEvalPlusCorrect++;
            line.disagreements.push({
                task: t,
                round: n,
                eddy: r ? r.category : "no verdict",
                evalplus: `base ${s.base_status}, plus ${s.plus_status}`,
                detail: r?.detail ?? "",
                evalplusFails: `base ${short(s.base_fail_tests ?? [])}; plus ${short(s.plus_fail_tests ?? [])}`,
                ...(causeOf.has(`${templateIdForTask(t)}|${n}`)
                    ? { cause: causeOf.get(`${templateIdForTask(t)}|${n}`)!.cause, why: causeOf.get(`${templateIdForTask(t)}|${n}`)!.explanation, evidence: causeOf.get(`${templateIdForTask(t)}|${n}`)!.evidence ?? [] }
                    : {})
            });
        });
    }
    return line;
}

function main(): void {
    const o = args();
    mkdirSync(o.work, { recursive: true });
    const db = path.join(o.work, "eddy.db");
    const load0 = loadavg()[0];
    const out: Line[] = [];
    for (const f of o.files) {
        const l = judgeFile(f, o, db);
        out.push(l);
        process.stderr.write(`${l.model} (${l.dataset}): ${l.agree}/${l.samples} agree, ${l.seconds.toFixed(0)} s\n`);
        // What is done so far survives an interrupted run.
        if (o.json) writeFileSync(o.json, JSON.stringify({ load: [load0, loadavg()[0]], files: out }, null, 2) + "\n");
    }
    const total = out.reduce((a, l) => ({ samples: a.samples + l.samples, agree: a.agree + l.agree, e: a.e + l.onlyEddyCorrect, p: a.p + l.onlyEvalPlusCorrect }), { samples: 0, agree: 0, e: 0, p: 0 });
    const md = [
        "| model | dataset | samples | agree | only eddy correct | only EvalPlus correct | eddy pass@1 | EvalPlus pass@1 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        ...out.map((l) => `| ${l.model} | ${l.dataset} | ${l.samples} | ${l.agree} | ${l.onlyEddyCorrect} | ${l.onlyEvalPlusCorrect} | ${((100 * l.eddyCorrect) / l.samples).toFixed(1)} | ${((100 * l.evalplusCorrect) / l.samples).toFixed(1)} |`),
        `| all | | ${total.samples} | ${total.agree} | ${total.e} | ${total.p} | | |`,
        "",
        "Disagreements:",
        ...out.flatMap((l) =>
            l.disagreements.map(
                (d) =>
                    `- ${l.model} ${d.task} (sample ${d.round}): eddy ${d.eddy} (${d.detail.slice(0, 300)}); EvalPlus ${d.evalplus} (${d.evalplusFails})${d.cause ? `\n  cause: ${d.cause}: ${d.why}${d.evidence?.length ? `\n  evidence: ${d.evidence.join("; ")}` : ""}` : ""}`
            )
        ),
        "",
        "Not judged (problems the import skipped):",
        ...out.flatMap((l) => l.notImported.map((x) => `- ${l.model} ${x.task}: ${x.samples} sample(s), ${x.evalplusCorrect} correct for EvalPlus; ${x.reason}`))
    ];
    process.stdout.write(md.join("\n") + "\n");
    if (o.json) writeFileSync(o.json, JSON.stringify({ load: [load0, loadavg()[0]], files: out }, null, 2) + "\n");
}

main();
