import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildTinyLlama, ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { checkSameModel } from "../../src/quant/models/checkSameModel.js";
import { byPrecision, precisionRank } from "../../src/quant/models/precision.js";
import { EddyError } from "../../src/util/errors.js";
import { sharedModelsDir } from "../run/sharedModels.js";

describe("quantisations of one model", () => {
    it("describes the tiny model's three quantisations and orders them by precision", async () => {
        const tiny = ensureTinyModels();
        const files = await checkSameModel([tiny.q4_0, tiny.f32, tiny.q8_0]);
        expect(files.map((f) => f.quantization)).toEqual(["Q4_0", "F32", "Q8_0"]);
        expect(files.every((f) => f.architecture === "llama" && f.vocabulary === files[0]!.vocabulary)).toBe(true);
        expect(byPrecision(files).map((f) => f.quantization)).toEqual(["F32", "Q8_0", "Q4_0"]);
    });

    it("rejects files that are not quantisations of the same model, naming the difference", async () => {
        const tiny = ensureTinyModels();
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-quant-"));
        const other = path.join(dir, "wider.gguf");
        // same vocabulary and architecture, but a feed-forward width that differs (another model)
        writeFileSync(other, buildTinyLlama({ quant: "f32", overrideDims: { tensor: "blk.0.ffn_up.weight", dims: [64, 96] } }));
        await expect(checkSameModel([tiny.f32, other])).rejects.toThrow(/wider\.gguf is not a quantisation of the same model as eddy-tiny-f32\.gguf: tensor blk\.0\.ffn_up\.weight/);
        const text = path.join(dir, "notes.gguf");
        writeFileSync(text, "not a model");
        await expect(checkSameModel([tiny.f32, text])).rejects.toBeInstanceOf(EddyError);
        await expect(checkSameModel([tiny.f32, path.join(dir, "missing.gguf")])).rejects.toThrow(/no such model file/);
        await expect(checkSameModel([tiny.f32, tiny.f32])).rejects.toThrow(/given twice/);
    });

    it("ranks quantisation names from most to least precise", () => {
        const names = ["Q2_K", "Q4_K_M", "F16", "Q8_0", "mostly_q6_k", "Q3_K_M", "BF16", "Q5_K_M", "F32"];
        expect([...names].sort((a, b) => precisionRank(a) - precisionRank(b))).toEqual(["F32", "F16", "BF16", "Q8_0", "mostly_q6_k", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K"]);
        // unknown types come last; among them the larger file counts as more precise
        const files = [
            { path: "a", quantization: "WEIRD", sizeBytes: 10 },
            { path: "b", quantization: null, sizeBytes: 20 },
            { path: "c", quantization: "Q4_0", sizeBytes: 5 }
        ];
        expect(byPrecision(files).map((f) => f.path)).toEqual(["c", "b", "a"]);
    });
});

const shared = sharedModelsDir();
if (!shared) console.warn("[skip] quantisation checks on stories260K: set EDDY_TEST_MODELS to the folder holding stories260K*.gguf");

describe.skipIf(!shared)("stories260K quantisations (EDDY_TEST_MODELS)", () => {
    it("accepts its three files and rejects a model with another vocabulary", async () => {
        const s = (name: string) => path.join(shared ?? "", name);
        const files = await checkSameModel([s("stories260K-q4_0.gguf"), s("stories260K.gguf"), s("stories260K-q8_0.gguf")]);
        // the F32 file has no general.file_type: the type comes from its weight tensors
        expect(byPrecision(files).map((f) => f.quantization)).toEqual(["F32", "Q8_0", "Q4_0"]);
        expect(files.every((f) => f.vocabulary === 512)).toBe(true);
        await expect(checkSameModel([s("stories260K.gguf"), ensureTinyModels().f32])).rejects.toThrow(/vocabulary of \d+ tokens vs 512/);
    });
});
