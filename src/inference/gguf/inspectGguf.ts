import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { GgufFileInfo } from "node-llama-cpp";
import { EddyError, oneLine } from "../../util/errors.js";
import { sha256File } from "../../util/files.js";

/** What eddy reads from a GGUF header (no weights loaded). */
export interface ModelInfo {
    /** Absolute path. */
    path: string;
    /** File name. */
    file: string;
    /** sha256 of the whole file (hex). */
    sha256: string;
    /** File size in bytes. */
    size_bytes: number;
    /** general.architecture, e.g. llama, qwen2. */
    architecture: string;
    /** File type name from general.file_type, e.g. Q4_K_M, Q8_0, F32; when absent, the weights' most common tensor type. */
    quantization: string;
    /** general.name, when present. */
    name?: string;
    /** general.size_label (e.g. 1.5B), when present. */
    size_label?: string;
    /** Parameter count summed over the tensor shapes. */
    parameter_count: number;
    /** <arch>.context_length: the trained context. */
    context_length?: number;
    /** <arch>.block_count. */
    layers?: number;
    /** <arch>.embedding_length. */
    embedding_length?: number;
    /** tokenizer.chat_template, when the file has one. */
    chat_template?: string;
    /** Tokenizer model (llama = SentencePiece, gpt2 = BPE…). */
    tokenizer?: string;
    /** GGUF format version. */
    gguf_version: number;
    /** Number of tensors. */
    tensor_count: number;
}

type NodeLlamaCpp = typeof import("node-llama-cpp");
let library: NodeLlamaCpp | undefined;

/** node-llama-cpp's whole index, imported on first use (~0.25 s of CPU): only where its reader modules cannot be. */
async function llamaLibrary(): Promise<NodeLlamaCpp> {
    return (library ??= await import("node-llama-cpp"));
}

/** What eddy reads GGUF headers with: node-llama-cpp's reader and the two enums that name types. */
export type GgufReader = Pick<NodeLlamaCpp, "readGgufFileInfo" | "GgufFileType" | "GgmlType">;

// The reader's own modules, by path inside the installed package (its `exports` name only the index).
const READER_MODULES = ["gguf/readGgufFileInfo.js", "gguf/types/GgufMetadataTypes.js", "gguf/types/GgufTensorInfoTypes.js"];
let reader: Promise<GgufReader> | undefined;

/**
 * node-llama-cpp's GGUF reader without the rest of the library. The package's index loads ~230
 * modules (bindings, downloader, chat wrappers): ~0.25 s of CPU that every study's orchestrator paid
 * to read one header; the reader's own modules take ~0.04 s. They are the same code the index
 * re-exports, imported by path; should a release move them, the index is used instead.
 */
export function ggufReader(): Promise<GgufReader> {
    return (reader ??= (async () => {
        try {
            const dist = path.dirname(fileURLToPath(import.meta.resolve("node-llama-cpp")));
            const [{ readGgufFileInfo }, { GgufFileType }, { GgmlType }] = (await Promise.all(READER_MODULES.map((m) => import(pathToFileURL(path.join(dist, m)).href)))) as [
                Pick<NodeLlamaCpp, "readGgufFileInfo">,
                Pick<NodeLlamaCpp, "GgufFileType">,
                Pick<NodeLlamaCpp, "GgmlType">
            ];
            if (typeof readGgufFileInfo === "function" && GgufFileType && GgmlType) return { readGgufFileInfo, GgufFileType, GgmlType };
        } catch {
            // moved or renamed in another release: the index has them
        }
        return await llamaLibrary();
    })());
}

/** A GGUF file's header, read by node-llama-cpp's reader (never the weights). */
export async function readGgufFileInfo(file: string, options: Parameters<NodeLlamaCpp["readGgufFileInfo"]>[1]): Promise<GgufFileInfo> {
    return (await ggufReader()).readGgufFileInfo(file, options);
}

/** Map general.file_type to its name: MOSTLY_Q4_K_M → Q4_K_M, ALL_F32 → F32. */
export async function fileTypeName(fileType: number | undefined): Promise<string> {
    if (fileType === undefined) return "unknown";
    const { GgufFileType } = await ggufReader();
    const name = (GgufFileType as unknown as Record<number, string | undefined>)[fileType];
    return name ? name.replace(/^(MOSTLY|ALL)_/, "") : `file_type_${fileType}`;
}

/**
 * The quantisation type: the header's general.file_type when present, else (older converters leave it
 * out) the tensor type holding most elements of the 2-D weight tensors; "unknown" when neither says.
 */
export async function quantizationOf(info: GgufFileInfo): Promise<string> {
    const fileType = info.metadata.general?.file_type as unknown;
    const n = typeof fileType === "bigint" ? Number(fileType) : fileType;
    if (typeof n === "number") return await fileTypeName(n);
    const types = new Map<number, number>();
    for (const t of info.fullTensorInfo ?? info.tensorInfo ?? []) {
        if (t.dimensions.length < 2) continue;
        const count = t.dimensions.reduce<number>((a, b) => a * Number(b), 1);
        types.set(t.ggmlType, (types.get(t.ggmlType) ?? 0) + count);
    }
    let best: number | undefined;
    for (const [type, count] of types) if (best === undefined || count > types.get(best)!) best = type;
    const { GgmlType } = await ggufReader();
    return best === undefined ? "unknown" : ((GgmlType as unknown as Record<number, string | undefined>)[best] ?? `ggml_type_${best}`);
}

/** Check a path is an existing, GGUF-looking file; a clear error otherwise. */
export function assertGgufFile(file: string): void {
    if (!existsSync(file))
        throw new EddyError(`model file not found: ${file} (put GGUF files in models/ or pass --model <path>)`);
    const st = statSync(file);
    if (!st.isFile()) throw new EddyError(`not a file: ${file}`);
    const fd = openSync(file, "r");
    const magic = Buffer.alloc(4);
    try {
        readSync(fd, magic, 0, 4, 0);
    } finally {
        closeSync(fd);
    }
    if (magic.toString("latin1") !== "GGUF") throw new EddyError(`not a GGUF file: ${file} (it does not start with the GGUF magic bytes)`);
}

/** Read a GGUF file's header (metadata, tensor shapes) and hash it; never loads weights. `signal` stops the hashing. */
export async function inspectGguf(file: string, signal?: AbortSignal): Promise<ModelInfo> {
    const header = await inspectGgufHeader(file);
    return { ...header, sha256: await sha256File(header.path, signal) };
}

/**
 * What the header says, without the file's sha256: hashing reads the whole file (minutes
 * for a folder of multi-GB models), so listings skip it unless asked.
 */
export async function inspectGgufHeader(file: string): Promise<Omit<ModelInfo, "sha256">> {
    const abs = path.resolve(file);
    assertGgufFile(abs);
    let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
    try {
        info = await readGgufFileInfo(abs, { readTensorInfo: true, ignoreKeys: [] });
    } catch (err) {
        throw new EddyError(`cannot read GGUF header of ${abs}: ${oneLine(err)} (truncated or corrupt file?)`);
    }
    const meta = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
    const general = (meta.general ?? {}) as Record<string, unknown>;
    const arch = String(general.architecture ?? "unknown");
    const archMeta = (meta[arch] ?? {}) as Record<string, unknown>;
    const tokenizer = (meta.tokenizer ?? {}) as Record<string, unknown>;
    const size = statSync(abs).size;
    // The header can be intact while the data is cut short: check the last tensor fits in the file.
    // (fileOffset is where a tensor's data starts, so a last tensor starting at the very end has no data.)
    let parameters = 0;
    let dataEnd = 0;
    for (const t of info.fullTensorInfo ?? []) {
        parameters += t.dimensions.reduce<number>((a, b) => a * Number(b), 1);
        dataEnd = Math.max(dataEnd, Number(t.fileOffset));
    }
    if (dataEnd > 0 && dataEnd >= size) throw new EddyError(`truncated GGUF file: ${abs} (tensor data runs past the end of the file, ${size} bytes)`);
    const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined);
    const out: Omit<ModelInfo, "sha256"> = {
        path: abs,
        file: path.basename(abs),
        size_bytes: size,
        architecture: arch,
        quantization: await quantizationOf(info),
        parameter_count: parameters,
        gguf_version: info.version,
        tensor_count: (info.fullTensorInfo ?? []).length
    };
    if (typeof general.name === "string") out.name = general.name;
    if (typeof general.size_label === "string") out.size_label = general.size_label;
    const ctx = num(archMeta.context_length);
    if (ctx !== undefined) out.context_length = ctx;
    const layers = num(archMeta.block_count);
    if (layers !== undefined) out.layers = layers;
    const emb = num(archMeta.embedding_length);
    if (emb !== undefined) out.embedding_length = emb;
    if (typeof tokenizer.chat_template === "string") out.chat_template = tokenizer.chat_template;
    const tokModel = (tokenizer.ggml as Record<string, unknown> | undefined)?.model;
    if (typeof tokModel === "string") out.tokenizer = tokModel;
    return out;
}
