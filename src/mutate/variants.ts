import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import type { Embedder } from "../embed/Embedder.js";
import { cosine } from "../embed/Embedder.js";
import type { PromptWrapper } from "../prompts/PromptWrapper.js";
import { EddyError } from "../util/errors.js";
import { candidateVariants, instructionText } from "./operators.js";

/** A mutant as checked: kept when its cosine similarity to the original reaches the threshold. */
export interface VariantRecord {
    id: string;
    operations: string[];
    similarity: number;
    kept: boolean;
    wrapper: PromptWrapper;
    /** The YAML file it was written to (kept variants only). */
    file?: string;
}

export interface VariantOptions {
    /** Kept variants wanted (default 8). */
    count?: number;
    /** Cosine threshold (default 0.85, as in the paper). */
    minSimilarity?: number;
    /** Candidates examined at most (default 6 × count). */
    candidates?: number;
}

export const DEFAULT_MIN_SIMILARITY = 0.85;

/**
 * Mutants of `original`, each embedded beside the original (one batch) and kept only when
 * cosine(original, variant) >= minSimilarity; the first `count` kept ones, in candidate order.
 * Rejected candidates are returned too, so a report can say what was turned away and why.
 */
export async function generateVariants(original: PromptWrapper, embedder: Embedder, opts: VariantOptions = {}): Promise<VariantRecord[]> {
    const count = opts.count ?? 8;
    const min = opts.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
    if (!Number.isInteger(count) || count < 1) throw new EddyError(`--variants must be a positive integer (got ${count})`);
    if (!(min >= -1 && min <= 1)) throw new EddyError(`--min-similarity must be between -1 and 1 (got ${min})`);
    const candidates = candidateVariants(original, opts.candidates ?? count * 6);
    const vecs = await embedder.embed([instructionText(original), ...candidates.map((c) => instructionText(c.wrapper))]);
    const out: VariantRecord[] = [];
    let kept = 0;
    candidates.forEach((c, i) => {
        if (kept >= count) return;
        const similarity = cosine(vecs[0]!, vecs[i + 1]!);
        const ok = similarity >= min;
        const id = `${original.id}-m${String(out.length + 1).padStart(2, "0")}`;
        out.push({
            id,
            operations: c.operations,
            similarity,
            kept: ok,
            wrapper: { ...c.wrapper, id, description: `mutant of '${original.id}': ${c.operations.join(" + ")} (cosine ${similarity.toFixed(3)})` }
        });
        if (ok) kept++;
    });
    return out;
}

/**
 * Write the kept variants as wrapper YAML files into `baseDir/<original>-<hash>/`; the folder name
 * hashes their content, so the same variants give the same files (and a resumable run identity).
 */
export function writeVariantFiles(baseDir: string, originalId: string, variants: VariantRecord[]): string {
    const kept = variants.filter((v) => v.kept);
    const hash = createHash("sha256").update(JSON.stringify(kept.map((v) => [v.id, v.wrapper.system, v.wrapper.user]))).digest("hex").slice(0, 10);
    const dir = path.join(baseDir, `${originalId.replace(/[^A-Za-z0-9_.-]/g, "_")}-${hash}`);
    mkdirSync(dir, { recursive: true });
    for (const v of kept) {
        v.file = path.join(dir, `${v.id}.yaml`);
        const doc = { id: v.id, description: v.wrapper.description, system: v.wrapper.system, user: v.wrapper.user };
        writeFileSync(v.file, `# Written by 'eddy mutate': ${v.operations.join(" + ")}\n` + stringify(doc, { lineWidth: 0 }));
    }
    return dir;
}
