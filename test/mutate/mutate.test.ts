import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Embedder } from "../../src/embed/Embedder.js";
import { writeTinyEmbedModel } from "../../src/embed/tinyEmbedModel.js";
import { candidateVariants, instructionText, OPERATIONS } from "../../src/mutate/operators.js";
import { buildMutateReport, renderMutateHtml, renderMutateText } from "../../src/mutate/report.js";
import { runMutateStudy } from "../../src/mutate/study.js";
import { recordMutateStudy } from "../../src/store/mutateStudies.js";
import { generateVariants } from "../../src/mutate/variants.js";
import { loadWrapper } from "../../src/prompts/PromptWrapper.js";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { openStore } from "../../src/store/Store.js";
import { modelsDir } from "../../src/util/paths.js";
import type { Outcome } from "../../src/vocabulary.js";
import { writeOutcomes } from "../report/storeFixture.js";
import { unwrapMessages } from "../support/messages.js";

const exec = promisify(execFile);
const CLI = path.resolve("dist/cli/bin.js");
const tmp = mkdtempSync(path.join(tmpdir(), "eddy-mutate-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let embedDir: string;
beforeAll(() => {
    embedDir = writeTinyEmbedModel(path.join(tmp, "embed"));
});

describe("wrapper mutations", () => {
    const original = loadWrapper("default");
    it("are deterministic, distinct, and never touch the question placeholder", () => {
        const a = candidateVariants(original, 40);
        expect(a).toEqual(candidateVariants(original, 40));
        expect(a.length).toBe(40);
        expect(new Set(a.map((c) => JSON.stringify([c.wrapper.system, c.wrapper.user]))).size).toBe(40);
        for (const c of a) expect(c.wrapper.user.split("{{question}}").length).toBe(2);
        // Every kind of operation shows up among single-operation variants.
        const kinds = new Set(a.filter((c) => c.operations.length === 1).map((c) => OPERATIONS.find((o) => o.name === c.operations[0])!.kind));
        expect([...kinds].sort()).toEqual(["casing", "delimiters", "order", "output-format", "paraphrase"]);
    });
    it("change wording, casing, delimiters and order as named", () => {
        const apply = (name: string) => OPERATIONS.find((o) => o.name === name)!.apply(original);
        expect(apply("upper-case").system).toBe(original.system.toUpperCase());
        expect(apply("tags-upper").user).toBe("<QUESTION>\n{{question}}\n</QUESTION>");
        expect(apply("instructions-after-question")).toMatchObject({ system: "", user: `{{question}}\n\n${original.system}` });
        expect(apply("paraphrase-1").system).toContain("Reply with");
        expect(apply("numbered-list").system.split("\n")[0]).toMatch(/^1\. You are an expert Python programmer\./);
        expect(instructionText(apply("instructions-after-question"))).toBe(instructionText({ ...original, system: "", user: original.system }));
    });
    it("are kept only at cosine similarity >= the threshold (tiny embedding model)", async () => {
        const e = await Embedder.load(embedDir);
        try {
            const strict = await generateVariants(original, e, { count: 4, minSimilarity: 0.85 });
            for (const v of strict) expect(v.kept).toBe(v.similarity >= 0.85);
            expect(strict.filter((v) => v.kept)).toHaveLength(4);
            // The tokenizer lower-cases: a casing change is the same text to it.
            expect(strict.find((v) => v.operations.join() === "upper-case")?.similarity).toBeCloseTo(1, 6);
            expect(strict.some((v) => !v.kept)).toBe(true);
            const all = await generateVariants(original, e, { count: 4, minSimilarity: -1 });
            expect(all.every((v) => v.kept)).toBe(true);
            expect(all.map((v) => v.id)).toEqual(["default-m01", "default-m02", "default-m03", "default-m04"]);
        } finally {
            await e.close();
        }
    });
});

/**
 * Scripted outcomes, 2 models × 3 wrappers (original, v1, v2) × 2 templates × 2 instances × 2 rounds.
 * Passes per (model, template, wrapper) out of 4:
 *   A: T1 [2, 4, 0], T2 [2, 2, 2]  → pooled AS [0.5, 0.75, 0.25]
 *   B: T1 [1, 2, 3], T2 [1, 2, 3]  → pooled AS [0.25, 0.5, 0.75]
 * plus one judge_error for A/original/T2 that must not count.
 */
function scripted(): Outcome[] {
    const passes: Record<string, Record<string, number[]>> = { A: { T1: [2, 4, 0], T2: [2, 2, 2] }, B: { T1: [1, 2, 3], T2: [1, 2, 3] } };
    const wrappers = ["default", "default-m01", "default-m02"];
    const out: Outcome[] = [];
    for (const model of ["A", "B"])
        for (const template of ["T1", "T2"])
            wrappers.forEach((wrapper, w) => {
                for (let k = 0; k < 4; k++) {
                    const instance = k >> 1, round = k & 1;
                    out.push({ runId: "mut-run", config: `${model} t=0 ${wrapper}`, model, quantization: null, temperature: 0, wrapper, template, group: "list", subgroups: [], instance, params: [instance], round, seed: 1, category: k < passes[model]![template]![w]! ? "passed" : "assertion_error", detail: "", code: null, response: "" });
                }
            });
    out.push({ runId: "mut-run", config: "A t=0 default", model: "A", quantization: null, temperature: 0, wrapper: "default", template: "T2", group: "list", subgroups: [], instance: 2, params: [2], round: 0, seed: 1, category: "judge_error", detail: "", code: null, response: "" });
    return out;
}

describe("sensitivity report on scripted outcomes (hand-computed)", () => {
    it("gives Z, MPI per configuration and template, Kendall's W and top-k IoU", () => {
        const db = path.join(tmp, "scripted.db");
        writeOutcomes(db, scripted());
        const store = openStore(db);
        try {
            const v = (id: string) => ({ id, operations: ["upper-case"], similarity: 0.9, kept: true });
            recordMutateStudy(store, { runId: "mut-run", original: "default", embedModel: embedDir, minSimilarity: 0.85, variants: [v("default-m01"), v("default-m02"), { ...v("default-m03"), kept: false, similarity: 0.5 }] });
            const r = buildMutateReport(store, ["mut-run"], { ks: [1, 2] });
            expect(r.wrappers.map((w) => w.id)).toEqual(["default", "default-m01", "default-m02"]);
            expect(r.rejected.map((w) => w.id)).toEqual(["default-m03"]);
            const [a, b] = r.configs;
            expect(a!.config).toBe("A t=0");
            expect(a!.values).toEqual([0.5, 0.75, 0.25]);
            expect(a!.z).toBeCloseTo(0, 12);
            expect(a!.mpi).toBeCloseTo(0.5, 12);
            expect(b!.values).toEqual([0.25, 0.5, 0.75]);
            // mean 0.5, σ = √(0.125/3): Z = −0.25/σ = −1.2247…; MPI = (0.75 − 0.25)/0.25 = 2.
            expect(b!.z).toBeCloseTo(-0.25 / Math.sqrt(0.125 / 3), 12);
            expect(b!.z).toBeCloseTo(-1.2247449, 6);
            expect(b!.mpi).toBeCloseTo(2, 12);
            expect(a!.best).toEqual({ wrapper: "default-m01", value: 0.75 });
            // Per template: A/T1 [0.5, 1, 0] → Z 0, MPI 1; A/T2 all 0.5 → Z undefined, MPI 0.
            expect(a!.perTemplate[0]).toMatchObject({ template: "T1", values: [0.5, 1, 0], mpi: 1 });
            expect(a!.perTemplate[0]!.z).toBeCloseTo(0, 12);
            expect(a!.perTemplate[1]).toMatchObject({ template: "T2", values: [0.5, 0.5, 0.5], z: null, mpi: 0 });
            // W: judges (wrappers) rank A over B, A over B, B over A: R = [4, 5], S = 0.5, W = 12·0.5/(9·6) = 1/9.
            expect(r.kendall!.w).toBeCloseTo(1 / 9, 12);
            expect(r.kendall!.s).toBeCloseTo(0.5, 12);
            // IoU: top-1 {m01} vs {m02} = 0; top-2 {m01, default} vs {m02, m01} = 1/3.
            expect(r.iou.map((x) => [x.k, x.mean])).toEqual([[1, 0], [2, 1 / 3]]);
            const text = renderMutateText(r);
            expect(text).toMatch(/Kendall's W across variants: 0\.111 \(weak to moderate\)/);
            expect(text).toContain("rejected: cos 0.500");
            expect(renderMutateHtml(r)).toContain('id="kendall-w"');
        } finally {
            store.close();
        }
    });
    it("uses the one AS of eddy report (mean over instances of c_i/n_i), not Σpassed/Σjudged", () => {
        const db = path.join(tmp, "one-as.db");
        // Original: instance 0 passed + truncated (1 of 1 judged), instance 1 passed + failed (1 of 2):
        // one AS = (1 + ½)/2 = 0.75; pooled would be 2/3. The variant: both instances 1 of 2 → 0.5 either way.
        const o = (wrapper: string, instance: number, round: number, category: Outcome["category"]): Outcome => ({ runId: "one-as", config: `C t=0 ${wrapper}`, model: "C", quantization: null, temperature: 0, wrapper, template: "T1", group: "list", subgroups: [], instance, params: [instance], round, seed: 1, category, detail: "", code: null, response: "" });
        writeOutcomes(db, [o("default", 0, 0, "passed"), o("default", 0, 1, "truncated"), o("default", 1, 0, "passed"), o("default", 1, 1, "assertion_error"), o("default-m01", 0, 0, "passed"), o("default-m01", 0, 1, "assertion_error"), o("default-m01", 1, 0, "assertion_error"), o("default-m01", 1, 1, "passed")]);
        const store = openStore(db);
        try {
            recordMutateStudy(store, { runId: "one-as", original: "default", embedModel: embedDir, minSimilarity: 0.85, variants: [{ id: "default-m01", operations: ["upper-case"], similarity: 0.9, kept: true }] });
            const r = buildMutateReport(store, ["one-as"]);
            expect(r.configs[0]!.values).toEqual([0.75, 0.5]);
            expect(r.configs[0]!.perTemplate[0]!.values).toEqual([0.75, 0.5]);
            // MPI = max(0, (0.5 − 0.75)/0.75) = 0; Z = (0.75 − 0.625)/0.125 = 1.
            expect(r.configs[0]!.mpi).toBe(0);
            expect(r.configs[0]!.z).toBeCloseTo(1, 12);
        } finally {
            store.close();
        }
    });
    it("leaves a variant with no judged response out of Z, MPI, W and IoU, and says so", () => {
        const db = path.join(tmp, "unjudged.db");
        // One template, two instances, one round. A: default [pass, fail], m01 [pass, pass], m02 [fail, fail];
        // B: default [pass, pass], m01 [pass, fail], m02 both truncated (no judged response).
        const rows: [string, string, Outcome["category"][]][] = [
            ["A", "default", ["passed", "assertion_error"]], ["A", "default-m01", ["passed", "passed"]], ["A", "default-m02", ["assertion_error", "assertion_error"]],
            ["B", "default", ["passed", "passed"]], ["B", "default-m01", ["passed", "assertion_error"]], ["B", "default-m02", ["truncated", "truncated"]]
        ];
        writeOutcomes(db, rows.flatMap(([model, wrapper, cats]) => cats.map((category, instance): Outcome => ({ runId: "unj", config: `${model} t=0 ${wrapper}`, model, quantization: null, temperature: 0, wrapper, template: "T1", group: "list", subgroups: [], instance, params: [instance], round: 0, seed: 1, category, detail: "", code: null, response: "" }))));
        const store = openStore(db);
        try {
            const v = (id: string) => ({ id, operations: ["upper-case"], similarity: 0.9, kept: true });
            recordMutateStudy(store, { runId: "unj", original: "default", embedModel: embedDir, minSimilarity: 0.85, variants: [v("default-m01"), v("default-m02")] });
            const r = buildMutateReport(store, ["unj"], { ks: [1, 2] });
            const b = r.configs.find((c) => c.config === "B t=0")!;
            expect(b.values).toEqual([1, 0.5, null]);
            expect(b.unjudged).toEqual(["default-m02"]);
            // Over [1, 0.5]: mean 0.75, σ = 0.25 → Z = 1 (counting m02 as 0 would give 1.2247); MPI = 0.
            expect(b.z).toBeCloseTo(1, 12);
            expect(b.mpi).toBe(0);
            expect(b.best).toEqual({ wrapper: "default", value: 1 });
            // W: m02 cannot rank B, so the judges are default (B > A) and m01 (A > B): rank sums 3 and 3, W = 0.
            expect(r.kendall!.judges).toBe(2);
            expect(r.kendall!.w).toBe(0);
            // IoU over default and m01: top-1 {m01} vs {default} = 0; top-2 both sets = 1.
            expect(r.iou.map((x) => [x.k, x.mean])).toEqual([[1, 0], [2, 1]]);
            expect(renderMutateText(r).replace(/\n {2}/g, " ")).toMatch(/B t=0: no judged response under default-m02 .*left out of Z, MPI, Kendall's W and top-k IoU, not counted as 0/);
            expect(renderMutateHtml(r)).toContain("left out of Z, MPI, Kendall");
            // What the values rest on: B judged 4 of 6 planned instances (3 variants × 2), 2 answers truncated.
            expect(b.answers).toEqual({ judged: 4, total: 6, responses: 4, truncated: 2, judge_error: 0, missing: 0 });
            // judged answers of planned ones (4 of 6), then instances with a judged answer (4 of 6)
            expect(renderMutateText(r)).toMatch(/^ {2}B t=0 +4 of 6 +4 of 6 +2 +0 +0$/m);
            expect(renderMutateHtml(r)).toContain("<td>4 of 6</td><td>4 of 6</td>");
        } finally {
            store.close();
        }
    });
    it("refuses a run that is not there", () => {
        const store = openStore(path.join(tmp, "scripted.db"));
        try {
            expect(() => buildMutateReport(store, ["nope"])).toThrow(/no run 'nope'/);
        } finally {
            store.close();
        }
    });
    it("on a plain run (`latest` after `eddy run`): one eddy: line saying so, exit 65, and the report that reads it, which runs as printed (issue #47)", () => {
        const db = path.join(tmp, "plain runs", "p.db");
        const eddy = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
        const made = eddy(["run", "--backend", "reference", "--templates", "list_every_kth", "--instances", "1", "--rounds", "1", "--db", db, "--no-progress"]);
        expect(made.status, made.stderr).toBe(0);
        const id = made.stdout.trim();
        const r = eddy(["mutate", "report", "latest", "--db", db]);
        expect(r.status).toBe(65);
        expect(r.stdout).toBe("");
        const lines = r.stderr.trimEnd().split("\n");
        expect(lines.filter((l) => l.startsWith("eddy"))).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toContain(`eddy: run ${id} ('latest') is not a prompt-mutation study ('eddy mutate run --help' says how to start one); its scores are in:`);
        const hint = lines.at(-1)!.trim();
        expect(hint).toBe(`eddy report ${id} --db '${db}'`);
        const report = eddy(["report", id, "--db", db]);
        expect(report.status, report.stderr).toBe(0);
        expect(report.stdout).toContain(id);
    });
});

describe("eddy mutate end to end", () => {
    const right = (n: number) => "```python\n" + `def copy_last_n(values):\n    return list(values[-${n}:]) if ${n} else []\n` + "```";
    it("runs reference and replayed answers across the kept variants; W = 1 and IoU = 1 by hand", async () => {
        const db = path.join(tmp, "e2e.db");
        const replay = path.join(tmp, "answers.jsonl");
        // Instance 0 (n = 0) right, instance 1 (n = 1) wrong: AS = 0.5 under every wrapper (replay ignores the prompt).
        writeFileSync(replay, [JSON.stringify({ template: "copy_last_n", instance: 0, round: 0, response: right(0) }), JSON.stringify({ template: "copy_last_n", instance: 1, round: 0, response: "```python\ndef copy_last_n(values):\n    return values\n```" })].join("\n") + "\n");
        const ref = (await exec(process.execPath, [CLI, "mutate", "run", "--backend", "reference", "-t", "copy_last_n", "-M", "2", "-R", "1", "--embed-model", embedDir, "--variants", "3", "--judge-workers", "1", "--db", db])).stdout.trim();
        // The second study through the API (one CLI spawn covers the command).
        const config = normalizeStudyConfig({ backend: "replay", replay, templates: "copy_last_n", instances: 2, rounds: 1, judgeWorkers: 1, db });
        const rep = (await runMutateStudy(config, { original: "default", embedModel: embedDir, minSimilarity: 0.85, count: 3 })).result.runId;
        const r = JSON.parse((await exec(process.execPath, [CLI, "mutate", "report", ref, rep, "--format", "json", "--top-k", "1,2", "--db", db])).stdout);
        expect(r.wrappers).toHaveLength(4);
        expect(r.configs.map((c: { values: number[] }) => c.values)).toEqual([[1, 1, 1, 1], [0.5, 0.5, 0.5, 0.5]]);
        expect(r.configs.map((c: { z: number | null; mpi: number | null }) => [c.z, c.mpi])).toEqual([[null, 0], [null, 0]]);
        // Every variant ranks reference first: R = [4, 8], S = 8, W = 12·8/(16·6) = 1.
        expect(r.kendall.w).toBeCloseTo(1, 12);
        expect(r.iou.map((x: { mean: number }) => x.mean)).toEqual([1, 1]);
        // The variants are ordinary wrapper files, and each is a configuration of the stored run.
        const store = openStore(db);
        try {
            expect(store.configurations(ref).map((c) => c.wrapper).sort()).toEqual(r.wrappers.map((w: { id: string }) => w.id).sort());
        } finally {
            store.close();
        }
        const html = path.join(tmp, "mutate.html");
        await exec(process.execPath, [CLI, "mutate", "report", ref, "--out", html, "--db", db]);
        expect(readFileSync(html, "utf8")).toContain("<h1>Prompt sensitivity</h1>");
    });

    it("refuses a missing embedding model with one line", async () => {
        const err = (await exec(process.execPath, [CLI, "mutate", "run", "--backend", "reference", "-t", "copy_last_n", "--embed-model", path.join(tmp, "missing"), "--db", path.join(tmp, "x.db")]).catch((e) => e)) as { code: number; stderr: string };
        expect(err.code).not.toBe(0);
        expect(unwrapMessages(err.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(err.stderr)).toMatch(/^eddy: embedding model folder .*missing does not exist/);
    });

    const tiny = path.join(modelsDir(), "eddy-tiny-f32.gguf");
    it.skipIf(!existsSync(tiny))("runs eddy's tiny GGUF model across the variants", async () => {
        const db = path.join(tmp, "tiny.db");
        const config = normalizeStudyConfig({ models: [tiny], templates: "copy_last_n", instances: 1, rounds: 1, maxTokens: 8, threads: 1, judgeWorkers: 1, db });
        const { result, variants } = await runMutateStudy(config, { original: "default", embedModel: embedDir, minSimilarity: 0.85, count: 2 });
        expect(result.status).toBe("complete");
        expect(variants.filter((v) => v.kept)).toHaveLength(2);
        const store = openStore(db);
        try {
            const r = buildMutateReport(store, [result.runId]);
            expect(r.configs).toHaveLength(1);
            expect(r.configs[0]!.config).toMatch(/^eddy-tiny-f32/);
            // Noise never passes and never stops: every response is cut at max tokens (truncated, a harness
            // outcome left out of AS), so no variant has a score and Z and MPI are undefined.
            expect(r.configs[0]!.values).toEqual([null, null, null]);
            expect(r.configs[0]!.z).toBeNull();
            expect(r.configs[0]!.mpi).toBeNull();
        } finally {
            store.close();
        }
    });
});
