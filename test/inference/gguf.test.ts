import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fromFp16Bits, toFp16Bits } from "../../src/inference/gguf/fp16.js";
import { fileTypeName, ggufReader, inspectGguf } from "../../src/inference/gguf/inspectGguf.js";
import { dequantizeQ4_0, dequantizeQ8_0, quantizeQ4_0, quantizeQ8_0 } from "../../src/inference/gguf/quantize.js";
import { buildTinyLlama, ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { writeGguf } from "../../src/inference/gguf/GgufWriter.js";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("fp16", () => {
    it("encodes values whose half-precision bits are known (IEEE 754 binary16 table)", () => {
        expect(toFp16Bits(1)).toBe(0x3c00);
        expect(toFp16Bits(-2)).toBe(0xc000);
        expect(toFp16Bits(65504)).toBe(0x7bff); // largest finite half
        expect(toFp16Bits(0.1)).toBe(0x2e66); // 0.0999755859375
        expect(toFp16Bits(2 ** -24)).toBe(0x0001); // smallest subnormal
        expect(toFp16Bits(1e6)).toBe(0x7c00); // overflow → inf
        expect(fromFp16Bits(0x2e66)).toBeCloseTo(0.0999755859375, 12);
    });
});

describe("block quantisation", () => {
    const block = Float32Array.from({ length: 32 }, (_, i) => i - 12); // -12 … 19

    it("Q8_0: fp16 scale max|x|/127 and rounded int8 values (ggml quantize_row_q8_0_ref)", () => {
        const q = quantizeQ8_0(block);
        expect(q.length).toBe(34);
        // d = 19/127 → fp16; the value 19 maps to 127, -12 to round(-12*127/19) = -80
        expect(q.readInt8(2 + 31)).toBe(127);
        expect(q.readInt8(2 + 0)).toBe(-80);
        const back = dequantizeQ8_0(q);
        const d = fromFp16Bits(q.readUInt16LE(0));
        for (let i = 0; i < 32; i++) expect(Math.abs(back[i]! - block[i]!)).toBeLessThanOrEqual(d / 2 + 1e-3);
    });

    it("Q4_0: d = (signed max-magnitude)/-8, nibbles low = first half, high = second half (ggml quantize_row_q4_0_ref)", () => {
        const q = quantizeQ4_0(block);
        expect(q.length).toBe(18);
        // max magnitude value is 19 → d = -19/8 = -2.375 (exact in fp16)
        expect(fromFp16Bits(q.readUInt16LE(0))).toBe(-2.375);
        // x=-12 (index 0): -12/-2.375 + 8.5 = 13.55 → 13; x=4 (index 16): 4/-2.375 + 8.5 = 6.81 → 6
        expect(q[2]! & 0x0f).toBe(13);
        expect(q[2]! >> 4).toBe(6);
        // x=19 (index 31): -8 + 8.5 → 0 in the high nibble of byte 15
        expect(q[2 + 15]! >> 4).toBe(0);
        const back = dequantizeQ4_0(q);
        for (let i = 0; i < 32; i++) expect(Math.abs(back[i]! - block[i]!)).toBeLessThanOrEqual(2.375 / 2 + 1e-6);
    });

    it("refuses a row that is not a whole number of blocks", () => {
        expect(() => quantizeQ8_0(new Float32Array(33))).toThrow(/multiple of 32/);
    });
});

describe("tiny models", () => {
    // Pinned: the writer must produce the same bytes on every machine and every run.
    const expected = {
        f32: "c6cca735208eabaae8da1780a04fb2328554bd4cfdfe5e122bc9921e00a0097e",
        q8_0: "faad9f7608cef276e831f677eed4d7ef03ab399c40c39e6f1f4e7ba73abe99c1",
        q4_0: "ccbae9f722d76cfce4404390ad2440f11d62d3b30db15c4031761d31952a4ce7"
    };

    it("are the same bytes every time", () => {
        for (const quant of ["f32", "q8_0", "q4_0"] as const) expect(sha(buildTinyLlama({ quant }))).toBe(expected[quant]);
    });

    it("ensureTinyModels writes them where missing", () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-tiny-"));
        const paths = ensureTinyModels(dir);
        expect(sha(readFileSync(paths.q4_0))).toBe(expected.q4_0);
        expect(path.dirname(paths.f32)).toBe(dir);
    });

    it("inspectGguf reads architecture, quantisation, hash and size from the header", async () => {
        const paths = ensureTinyModels();
        for (const [quant, name] of [["f32", "F32"], ["q8_0", "Q8_0"], ["q4_0", "Q4_0"]] as const) {
            const info = await inspectGguf(paths[quant]);
            expect(info.architecture).toBe("llama");
            expect(info.quantization).toBe(name);
            expect(info.sha256).toBe(expected[quant]);
            expect(info.size_bytes).toBe(readFileSync(paths[quant]).length);
            expect(info.context_length).toBe(2048);
            expect(info.chat_template).toBeUndefined();
            expect(info.parameter_count).toBeGreaterThan(100_000);
        }
    });

    it("reads headers with node-llama-cpp's own reader modules, not the package's whole index", async () => {
        const reader = await ggufReader();
        // The fast path: the reader's modules alone (the index would bring getLlama and ~230 modules more).
        expect(Object.keys(reader).sort()).toEqual(["GgmlType", "GgufFileType", "readGgufFileInfo"]);
        // The very functions and enums the index exports (one module instance each), so nothing differs but the load.
        const index = await import("node-llama-cpp");
        expect(reader.readGgufFileInfo).toBe(index.readGgufFileInfo);
        expect(reader.GgufFileType).toBe(index.GgufFileType);
        expect(reader.GgmlType).toBe(index.GgmlType);
    });

    it("maps general.file_type numbers to llama.cpp's names", async () => {
        expect(await fileTypeName(15)).toBe("Q4_K_M");
        expect(await fileTypeName(7)).toBe("Q8_0");
        expect(await fileTypeName(0)).toBe("F32");
        expect(await fileTypeName(undefined)).toBe("unknown");
    });

    it("inspectGguf gives clear errors for a missing file, a non-GGUF file and a cut header", async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-bad-"));
        await expect(inspectGguf(path.join(dir, "nope.gguf"))).rejects.toThrow(/model file not found.*models\//);
        writeFileSync(path.join(dir, "text.gguf"), "hello, not a model\n");
        await expect(inspectGguf(path.join(dir, "text.gguf"))).rejects.toThrow(/not a GGUF file/);
        writeFileSync(path.join(dir, "cut.gguf"), buildTinyLlama({ quant: "f32" }).subarray(0, 3000));
        await expect(inspectGguf(path.join(dir, "cut.gguf"))).rejects.toThrow(/truncated|cannot read GGUF header/);
    });

    it("the writer aligns tensor data to 32 bytes", () => {
        const buf = writeGguf({ metadata: [["general.architecture", { type: "string", value: "x" }]], tensors: [{ name: "a", dims: [3], type: 0, data: Buffer.alloc(12) }, { name: "b", dims: [1], type: 0, data: Buffer.alloc(4) }] });
        expect(buf.subarray(0, 4).toString("latin1")).toBe("GGUF");
        expect(buf.readUInt32LE(4)).toBe(3);
        expect(buf.length % 32).toBe(0);
    });
});
