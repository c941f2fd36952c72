import { describe, expect, it } from "vitest";
import { instancesToDetect, powerStatement, smallestDetectableDrop } from "../../src/quant/compare/power.js";
import type { QuantFile } from "../../src/quant/models/checkSameModel.js";
import { renderQuantText } from "../../src/quant/report/renderQuantText.js";
import { buildQuantReport } from "../../src/quant/study/buildQuantReport.js";
import { outcomes } from "./fixtures.js";

// Connor (1987): n = [z(0.975)·√ψ + z(0.8)·√(ψ − δ²)]² / δ², z(0.975) = 1.95996, z(0.8) = 0.84162.
describe("power and sample size of a paired comparison (McNemar)", () => {
    it("matches values worked by hand", () => {
        // ψ = 0.10, δ = 0.02: √0.1 = 0.316228 → 0.619795; √(0.1 − 0.0004) = 0.315595 → 0.265611;
        // (0.885406)² = 0.783944; / 0.0004 = 1959.86 → 1960 instances.
        expect(instancesToDetect(0.02, 0.1)).toBe(1960);
        // ψ = 0.20, δ = 0.05: 1.95996·0.447214 = 0.876523; 0.84162·√0.1975 = 0.374024; (1.250547)² / 0.0025 = 625.55 → 626.
        expect(instancesToDetect(0.05, 0.2)).toBe(626);
        // No discordance seen: a drop of δ needs ψ ≥ δ; ψ = δ = 0.02: (1.95996·0.141421 + 0.84162·0.140000)² / 0.0004
        // = (0.277180 + 0.117827)² / 0.0004 = 390.08 → 391 (above the exact test's floor of 6 / 0.02 = 300).
        expect(instancesToDetect(0.02, 0)).toBe(391);
        // The exact floor: 6 discordant pairs all lost are the fewest an exact McNemar finds (p = 2·0.5⁶ = 0.031).
        expect(instancesToDetect(0.5, 0.5)).toBeGreaterThanOrEqual(12);
    });

    it("finds the smallest detectable drop: 100 instances at ψ = 0.1 detect 8.76 points", () => {
        // By hand, 10δ = 0.619795 + 0.84162·√(0.1 − δ²): δ = 0.0875 gives 0.8750 < 0.8755, δ = 0.0880 gives 0.8800 > 0.8754.
        const d = smallestDetectableDrop(100, 0.1);
        expect(d).toBeGreaterThan(0.0875);
        expect(d).toBeLessThan(0.088);
        // n below the exact test's floor (6 instances) can detect nothing
        expect(smallestDetectableDrop(5, 0.5)).toBe(1);
        // more instances, smaller drops
        expect(smallestDetectableDrop(1000, 0.1)).toBeLessThan(d);
    });
});

const file = (name: string, quantization: string, sizeBytes: number): QuantFile => ({ path: `/m/${name}.gguf`, quantization, sizeBytes, architecture: "llama", vocabulary: 512, tensors: 48 });
const FILES = [file("m-f16", "F16", 4000), file("m-q8_0", "Q8_0", 2100), file("m-q4_k_m", "Q4_K_M", 1200), file("m-iq3_xxs", "IQ3_XXS", 800)];
const all = (s: string, n = 10) => Array<string>(n).fill(s);

describe("the recommendation on replay answers with known flips", () => {
    // Ten instances, one round. Q8_0 answers like F16; Q4_K_M loses one instance; IQ3_XXS loses all ten.
    const OUT = [
        ...outcomes("m-f16", { t1: all("P") }),
        ...outcomes("m-q8_0", { t1: all("P") }),
        ...outcomes("m-q4_k_m", { t1: ["A", ...all("P", 9)] }),
        ...outcomes("m-iq3_xxs", { t1: all("A") })
    ];
    const r = buildQuantReport({
        runId: "run-1", db: "/tmp/x.db", study: { templates: ["t1"], instances: 10, rounds: 1, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
        files: FILES, reference: "/m/m-f16.gguf", outcomes: OUT, driftSource: "skipped", driftTexts: 0,
        configurations: FILES.map((f) => ({ modelPath: f.path, quantization: f.quantization, promptTokensPerS: null, generationTokensPerS: null })), bootstrapSeed: 3,
        bitsPerWeight: { "/m/m-f16.gguf": 16, "/m/m-q8_0.gguf": 8.5, "/m/m-q4_k_m.gguf": 4.9, "/m/m-iq3_xxs.gguf": 3.1 }
    });

    it("names the smallest file not significantly worse, with pass@1 and bits per weight", () => {
        const [f16, , q4, iq3] = r.files;
        expect(iq3!.not_worse).toBe(false); // 10 of 10 lost: p = 2/1024
        expect(q4!.not_worse).toBe(true); // one loss: p = 1
        expect(r.cheapest_not_worse).toBe("/m/m-q4_k_m.gguf");
        expect(q4!.pass_at_1.value).toBeCloseTo(0.9, 10);
        expect(q4!.pass_at_1.ci.lo).toBeCloseTo(0.5958, 3); // Wilson, 9 of 10
        expect(f16!.bits_per_weight).toBe(16);
    });

    it("states the study's power from the pooled discordance", () => {
        // discordant instances: 0 + 1 + 10 of 30 compared → ψ = 11/30; n = 10.
        expect(r.power.instances).toBe(10);
        expect(r.power.discordance).toBeCloseTo(11 / 30, 12);
        // 10 instances: the exact floor (6/10) and the normal bound (solved numerically, 0.6158) both hold; the larger wins.
        expect(r.power.smallest_detectable_drop_points).toBeCloseTo(61.6, 1);
        // 2 points at ψ = 0.3667: (1.95996·0.605530 + 0.84162·0.605200)² / 0.0004 = 7192.4 → 7193
        expect(r.power.instances_for_target).toBe(7193);
        expect(powerStatement([{ instances: 10, discordant: 11 }, { instances: 20, discordant: 0 }]).discordance).toBeCloseTo(11 / 30, 12);
        const text = renderQuantText(r);
        expect(text).toContain("Cheapest file not significantly worse than the reference: Q4_K_M");
        expect(text.replace(/\s+/g, " ")).toMatch(/Power: with 10 instances and a discordance of 36\.7% .* detects a drop of 61\.6 points or more .* a drop of 2 points needs about 7193 instances/s);
        expect(text).toContain("bits/weight");
    });
});
