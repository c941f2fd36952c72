import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CalibrationSource } from "./calibration.js";

/** The manifest's file name, beside the files it describes. */
export const MANIFEST_NAME = "eddy-quant-manifest.json";

/** An importance matrix eddy computed (or was given), as the manifest records it. */
export interface ImatrixRecord {
    /** File name (in the ladder's folder) or absolute path of a given one. */
    file: string;
    /** sha256 of the imatrix file. */
    sha256: string;
    /** What it was computed on: eddy's calibration text, or "given" for --imatrix FILE. */
    computed_on: (CalibrationSource & { kind: "calibration"; context: number; chunks: number | null }) | { kind: "given"; path: string };
    /** Source model it was computed with (sha256). */
    source_sha256: string;
    /** llama.cpp commit of llama-imatrix (null for a given file). */
    llama_cpp_commit: string | null;
    /** Seconds llama-imatrix took (0 for a given file). */
    seconds: number;
}

/** One made file. */
export interface ManifestFile {
    /** File name, in the manifest's folder. */
    file: string;
    /** Quantisation type asked of llama-quantize (e.g. Q4_K_M). */
    type: string;
    /** sha256 and size of the made file. */
    sha256: string;
    size_bytes: number;
    /** Bits per weight: tensor data bits over the parameter count. */
    bits_per_weight: number;
    /** The full-precision source. */
    source: { path: string; sha256: string; size_bytes: number; quantization: string | null };
    /** The importance matrix used, by sha256 (null when none was, or the type does not read one). */
    imatrix: { sha256: string; file: string } | null;
    /** llama.cpp llama-quantize came from. */
    llama_cpp: { release: string; commit: string | null };
    /** eddy that made it. */
    eddy_version: string;
    /** When it was made (ISO time) and how long llama-quantize took, seconds. */
    made_at: string;
    seconds: number;
}

/** `eddy-quant-manifest.json`. */
export interface QuantManifest {
    format: 1;
    files: ManifestFile[];
    imatrices: ImatrixRecord[];
}

/** The manifest in `dir`, or an empty one (also when unreadable: its files are then made again). */
export function readManifest(dir: string): QuantManifest {
    const file = path.join(dir, MANIFEST_NAME);
    if (!existsSync(file)) return { format: 1, files: [], imatrices: [] };
    try {
        const m = JSON.parse(readFileSync(file, "utf8")) as QuantManifest;
        if (m.format === 1 && Array.isArray(m.files) && Array.isArray(m.imatrices)) return m;
    } catch {
        // a manifest that does not parse describes nothing
    }
    return { format: 1, files: [], imatrices: [] };
}

/** Write the manifest atomically (a kill leaves the old one or the new one, never half). */
export function writeManifest(dir: string, m: QuantManifest): void {
    const file = path.join(dir, MANIFEST_NAME);
    const tmp = `${file}.${process.pid}.tmp`;
    try {
        writeFileSync(tmp, JSON.stringify(m, null, 2) + "\n");
        renameSync(tmp, file);
    } catch (err) {
        try {
            unlinkSync(tmp);
        } catch {
            // nothing written
        }
        throw err;
    }
}
