import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import onnxProto from "onnx-proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Embedder, cosine, inspectEmbedModel } from "../../src/embed/Embedder.js";
import { sharedTokenizerDir, tinyEmbedOnnx, writeTinyEmbedModel } from "../../src/embed/tinyEmbedModel.js";
import { EddyError } from "../../src/util/errors.js";

const { onnx } = onnxProto;
const tmp = mkdtempSync(path.join(tmpdir(), "eddy-embed-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The tiny model's tables, read back from its ONNX file. */
function tables(dir: string): { word: Float32Array; type: Float32Array; hidden: number } {
    const model = onnx.ModelProto.decode(readFileSync(path.join(dir, "onnx", "model.onnx")));
    const get = (name: string) => {
        const t = model.graph!.initializer!.find((i) => i.name === name)!;
        const raw = t.rawData!;
        return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    };
    return { word: get("word_embeddings"), type: get("token_type_embeddings"), hidden: Number(model.graph!.output![0]!.type!.tensorType!.shape!.dim![2]!.dimValue) };
}

const tokenizers: [string, string | undefined][] = [["eddy's own WordPiece vocabulary", undefined]];
const shared = sharedTokenizerDir();
if (shared) tokenizers.push(["all-MiniLM-L6-v2's real WordPiece tokenizer (copied)", shared]);
else console.warn("[eddy] embed: EDDY_TEST_MODELS not set: the tiny model is tested with eddy's own tokenizer only");

describe.each(tokenizers)("tiny ONNX embedding model with %s", (_label, from) => {
    let dir: string;
    let embedder: Embedder;
    beforeAll(async () => {
        dir = writeTinyEmbedModel(path.join(tmp, from ? "shared" : "own"), from ? { tokenizerFrom: from } : {});
        embedder = await Embedder.load(dir, { batchSize: 3 });
    });
    afterAll(async () => embedder?.close());

    const texts = ["Write a python function to add two numbers.", "You are an expert Python programmer.", "a", "Answer with a single Python code block that defines the requested function.", "sum of the list"];

    it("loads through transformers.js with remote loading off and gives unit vectors of the model's width", async () => {
        const { env } = await import("@huggingface/transformers");
        expect(env.allowRemoteModels).toBe(false);
        const v = await embedder.embed(texts);
        expect(v).toHaveLength(texts.length);
        for (const x of v) {
            expect(x).toHaveLength(tables(dir).hidden);
            expect(Math.hypot(...x)).toBeCloseTo(1, 5);
        }
    });

    it("mean-pools the token vectors over the attention mask (checked against the weights)", async () => {
        const { AutoTokenizer } = await import("@huggingface/transformers");
        const tok = await AutoTokenizer.from_pretrained(path.basename(dir));
        const { word, type, hidden } = tables(dir);
        const [got] = await embedder.embed([texts[0]!]);
        const ids = Array.from((tok(texts[0]!) as { input_ids: { data: BigInt64Array } }).input_ids.data, Number);
        expect(ids.length).toBeGreaterThan(3);
        const sum = new Array<number>(hidden).fill(0);
        for (const id of ids) for (let h = 0; h < hidden; h++) sum[h]! += word[id * hidden + h]! + type[h]!;
        const norm = Math.hypot(...sum);
        got!.forEach((x, h) => expect(x).toBeCloseTo(sum[h]! / norm, 5));
    });

    it("gives the same vectors batched (padded) as one at a time", async () => {
        const batched = await embedder.embed(texts, 5);
        const single = await embedder.embed(texts, 1);
        batched.forEach((b, i) => expect(cosine(b, single[i]!)).toBeCloseTo(1, 6));
        expect(cosine(batched[0]!, batched[0]!)).toBeCloseTo(1, 12);
        expect(cosine(batched[0]!, batched[2]!)).toBeLessThan(0.99);
    });

    it("is deterministic: the same seed writes the same bytes", () => {
        expect(Buffer.from(tinyEmbedOnnx(50, 8, 7)).equals(Buffer.from(tinyEmbedOnnx(50, 8, 7)))).toBe(true);
        expect(Buffer.from(tinyEmbedOnnx(50, 8, 7)).equals(Buffer.from(tinyEmbedOnnx(50, 8, 8)))).toBe(false);
    });
});

describe("a missing or malformed model folder is one clear line", () => {
    const expectOneLine = (f: () => unknown, re: RegExp) => {
        try {
            f();
        } catch (err) {
            expect(err).toBeInstanceOf(EddyError);
            expect((err as Error).message).toMatch(re);
            expect((err as Error).message).not.toContain("\n");
            return;
        }
        throw new Error("expected an EddyError");
    };
    it("names what is missing", () => {
        expectOneLine(() => inspectEmbedModel(path.join(tmp, "nowhere")), /does not exist/);
        const d = path.join(tmp, "broken");
        mkdirSync(d, { recursive: true });
        expectOneLine(() => inspectEmbedModel(d), /has no config\.json/);
        writeFileSync(path.join(d, "config.json"), "{not json");
        expectOneLine(() => inspectEmbedModel(d), /config\.json is not valid JSON/);
        writeFileSync(path.join(d, "config.json"), JSON.stringify({ model_type: "bert" }));
        expectOneLine(() => inspectEmbedModel(d), /has no tokenizer\.json/);
        writeFileSync(path.join(d, "tokenizer.json"), "{}");
        expectOneLine(() => inspectEmbedModel(d), /has no onnx\/model\.onnx/);
    });
    it("a corrupt ONNX file fails at load with a one-line EddyError", async () => {
        const d = writeTinyEmbedModel(path.join(tmp, "corrupt"));
        writeFileSync(path.join(d, "onnx", "model.onnx"), "this is not a protobuf");
        await expect(Embedder.load(d)).rejects.toThrow(EddyError);
        unlinkSync(path.join(d, "onnx", "model.onnx"));
        await expect(Embedder.load(d)).rejects.toThrow(/has no onnx/);
    });
});
