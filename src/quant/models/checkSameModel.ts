import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { GgufFileInfo } from "node-llama-cpp";
import { quantizationOf as headerQuantization, readGgufFileInfo } from "../../inference/gguf/inspectGguf.js";
import { EddyError, oneLine } from "../../util/errors.js";

/** One GGUF file of a quantisation study, described from its header (weights are not read). */
export interface QuantFile {
    /** Absolute path. */
    path: string;
    /** Quantisation type name (e.g. `Q4_K_M`, `F32`). */
    quantization: string | null;
    /** File size, bytes. */
    sizeBytes: number;
    /** general.architecture (e.g. llama). */
    architecture: string;
    /** Tokens in the vocabulary. */
    vocabulary: number;
    /** Number of tensors. */
    tensors: number;
}

/** What must match between quantisations of one model. */
interface Identity {
    architecture: string;
    tokenizerModel: string;
    tokensHash: string;
    vocabulary: number;
    mergesHash: string;
    /** Tensor names with shapes, sorted. The element types differ between quantisations; the shapes must not. */
    shapes: string[];
}

async function readHeader(file: string): Promise<GgufFileInfo> {
    if (!existsSync(file)) throw new EddyError(`no such model file: ${file}`);
    try {
        return await readGgufFileInfo(file, { logWarnings: false, sourceType: "filesystem" });
    } catch (err) {
        throw new EddyError(`${file} is not a readable GGUF file (${oneLine(err)})`);
    }
}

function sha(value: unknown): string {
    return createHash("sha256").update(JSON.stringify(value ?? null)).digest("hex");
}

function identityOf(info: GgufFileInfo): Identity {
    const tok = info.metadata.tokenizer?.ggml;
    const tokens = (tok?.tokens ?? []) as unknown[];
    return {
        architecture: String(info.metadata.general?.architecture ?? "unknown"),
        tokenizerModel: String(tok?.model ?? "unknown"),
        tokensHash: sha(tokens),
        vocabulary: tokens.length,
        mergesHash: sha((tok as { merges?: unknown } | undefined)?.merges),
        shapes: (info.fullTensorInfo ?? info.tensorInfo ?? []).map((t) => `${t.name}[${t.dimensions.join("x")}]`).sort()
    };
}

/** The quantisation type as `eddy models inspect` and the study record it (one rule), null when the header does not say. */
export async function quantizationOf(info: GgufFileInfo): Promise<string | null> {
    const q = await headerQuantization(info);
    return q === "unknown" ? null : q;
}

function firstDifference(a: Identity, b: Identity): string | null {
    if (a.architecture !== b.architecture) return `architecture ${b.architecture} vs ${a.architecture}`;
    if (a.tokenizerModel !== b.tokenizerModel) return `tokenizer ${b.tokenizerModel} vs ${a.tokenizerModel}`;
    if (a.vocabulary !== b.vocabulary) return `vocabulary of ${b.vocabulary} tokens vs ${a.vocabulary}`;
    if (a.tokensHash !== b.tokensHash) return "different token lists";
    if (a.mergesHash !== b.mergesHash) return "different tokenizer merges";
    if (a.shapes.length !== b.shapes.length) return `${b.shapes.length} tensors vs ${a.shapes.length}`;
    const i = a.shapes.findIndex((s, k) => s !== b.shapes[k]);
    if (i >= 0) return `tensor ${b.shapes[i]} vs ${a.shapes[i]}`;
    return null;
}

/**
 * Reads every file's header and checks they are quantisations of one model: same
 * architecture, same tokenizer and vocabulary, same tensor names and shapes. Throws an
 * EddyError naming the first mismatch; returns the files' descriptions in the given order.
 */
export async function checkSameModel(files: readonly string[]): Promise<QuantFile[]> {
    if (files.length === 0) throw new EddyError("no model files given");
    const resolved = files.map((f) => path.resolve(f));
    const dup = resolved.find((f, i) => resolved.indexOf(f) !== i);
    if (dup) throw new EddyError(`${dup} is given twice`);
    const out: QuantFile[] = [];
    let first: { file: string; id: Identity } | undefined;
    for (const file of resolved) {
        const info = await readHeader(file);
        const id = identityOf(info);
        if (!first) first = { file, id };
        else {
            const diff = firstDifference(first.id, id);
            if (diff) throw new EddyError(`${path.basename(file)} is not a quantisation of the same model as ${path.basename(first.file)}: ${diff}`);
        }
        out.push({ path: file, quantization: await quantizationOf(info), sizeBytes: statSync(file).size, architecture: id.architecture, vocabulary: id.vocabulary, tensors: id.shapes.length });
    }
    return out;
}
