import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderQuantHtml } from "../../src/quant/report/renderQuantHtml.js";
import { renderQuantText } from "../../src/quant/report/renderQuantText.js";
import { buildQuantReport } from "../../src/quant/study/buildQuantReport.js";
import type { QuantReport } from "../../src/quant/study/types.js";
import { loadOutcomes } from "../../src/store/outcomes.js";
import { openStore } from "../../src/store/Store.js";

/**
 * The recommendation and the power statement on replay answers with known flips, judged by eddy's real judge:
 * the reference backend's answers stand for F16 and Q8_0; Q4_K_M's answer to instance 0 is wrong; every IQ3_XXS
 * answer is wrong. Each is a replay run (the judge decides every verdict); their outcomes go into the same report
 * builder `eddy quant` uses.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "dist/cli/bin.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-quant-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, "replay.db");
const STUDY = ["-t", "copy_last_n", "-M", "10", "-R", "1", "--judge-workers", "2", "--no-progress", "--db", db];
const eddy = async (args: string[]): Promise<string> => {
    const r = await execa(process.execPath, [BIN, ...args], { cwd: ROOT, reject: false });
    if (r.exitCode !== 0) throw new Error(`eddy ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
};
const FILES = [
    { name: "m-f16", q: "F16", size: 4_000_000, wrong: [] as number[] },
    { name: "m-q8_0", q: "Q8_0", size: 2_100_000, wrong: [] },
    { name: "m-q4_k_m", q: "Q4_K_M", size: 1_200_000, wrong: [0] },
    { name: "m-iq3_xxs", q: "IQ3_XXS", size: 800_000, wrong: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }
];
const WRONG = "```python\ndef copy_last_n(values):\n    return None\n```";

describe("the recommendation and power on judged replay answers with known flips", () => {
    let report: QuantReport;

    beforeAll(async () => {
        const reference = (await eddy(["run", "--backend", "reference", ...STUDY])).trim().split("\n").pop()!;
        const rows = (await eddy(["export", reference, "--db", db]))
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as { template: string; instance: number; round: number; response: string });
        const runs: string[] = [];
        for (const f of FILES) {
            const file = path.join(dir, `${f.name}.jsonl`);
            writeFileSync(file, rows.map((r) => JSON.stringify({ ...r, response: f.wrong.includes(r.instance) ? WRONG : r.response })).join("\n") + "\n");
            runs.push((await eddy(["run", "--backend", "replay", "--replay", file, ...STUDY])).trim().split("\n").pop()!);
        }
        const store = openStore(db, { readonly: true });
        try {
            const outcomes = loadOutcomes(store, runs);
            const label = (run: string) => store.configurations(run)[0]!.model;
            report = buildQuantReport({
                runId: runs[0]!, db, study: { templates: ["copy_last_n"], instances: 10, rounds: 1, seed: 1, temperature: 0, wrapper: "default", maxTokens: 512 },
                files: FILES.map((f, i) => ({ path: `/m/${f.name}.gguf`, quantization: f.q, sizeBytes: f.size, architecture: "llama", vocabulary: 512, tensors: 48, label: label(runs[i]!) })),
                reference: "/m/m-f16.gguf", outcomes, driftSource: "skipped", driftTexts: 0,
                configurations: FILES.map((f, i) => ({ label: label(runs[i]!), modelPath: `/m/${f.name}.gguf`, quantization: f.q, promptTokensPerS: null, generationTokensPerS: null })),
                bootstrapSeed: 3
            });
        } finally {
            store.close();
        }
    }, 300_000);

    it("finds the flips the judge decided, and names the smallest file not significantly worse", () => {
        const [f16, q8, q4, iq3] = report.files;
        expect(f16!.pass_at_1.value).toBe(1);
        expect(q8!.flip_counts.responses).toMatchObject({ lost: 0, gained: 0, bothPassed: 10 });
        expect(q4!.flip_counts.instances).toMatchObject({ lost: 1, gained: 0 });
        expect(q4!.response_flips.map((x) => [x.template, x.instance, x.reference.category, x.candidate.category])).toEqual([["copy_last_n", 0, "passed", "assertion_error"]]);
        expect(q4!.not_worse).toBe(true); // one loss: McNemar p = 1
        expect(iq3!.flip_counts.instances.lost).toBe(10);
        expect(iq3!.mcnemar.instance.p).toBeCloseTo(2 / 1024, 10);
        expect(iq3!.not_worse).toBe(false);
        expect(report.verdict).toMatchObject({ decided: true, file: "/m/m-q4_k_m.gguf", configuration: q4!.model });
    });

    it("states the study's power from the pooled discordance, in the terminal and the HTML report alike", async () => {
        // discordant instances: 0 + 1 + 10 of 30 compared → ψ = 11/30; 10 instances.
        expect(report.power.discordance).toBeCloseTo(11 / 30, 12);
        expect(report.power.instances_for_target).toBe(7193);
        const text = renderQuantText(report);
        expect(text).toContain("Cheapest file not significantly worse than the reference: Q4_K_M");
        expect(text).toMatch(/^Q4_K_M \(ship\) +0\.900 \[0\.596, 0\.982\]/m);
        expect(text.replace(/\s+/g, " ")).toContain(report.power.text);
        const html = await renderQuantHtml(report);
        expect(html).toContain('<tr class="recommended" data-config="m-q4_k_m">');
        expect(html).toContain(`<p id="power">${report.power.text}</p>`);
    });
});
