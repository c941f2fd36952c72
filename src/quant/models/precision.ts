/**
 * Quantisation types from most to least precise, by bits per weight (llama.cpp's
 * quantize table). Picks the default reference: the highest precision among the files.
 */
const PRECISION_ORDER = [
    "F32", "F16", "BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q5_1", "Q5_K_S", "Q5_0", "Q4_K_M", "Q4_1", "Q4_K_S", "Q4_0",
    "IQ4_XS", "IQ4_NL", "Q3_K_L", "Q3_K_M", "IQ3_M", "IQ3_S", "Q3_K_S", "IQ3_XS", "IQ3_XXS", "Q2_K", "Q2_K_S",
    "IQ2_M", "IQ2_S", "IQ2_XS", "IQ2_XXS", "TQ2_0", "IQ1_M", "TQ1_0", "IQ1_S"
] as const;

/** Upper-case name without llama.cpp's `MOSTLY_` / `ALL_` prefixes: `mostly_q4_k_m` → `Q4_K_M`. */
export function normalizeQuantName(name: string): string {
    return name.trim().toUpperCase().replace(/^(MOSTLY|ALL)_/, "");
}

/** Rank of a quantisation type: 0 is the most precise; unknown types rank after every known one. */
export function precisionRank(quantization: string | null | undefined): number {
    if (!quantization) return PRECISION_ORDER.length;
    const i = (PRECISION_ORDER as readonly string[]).indexOf(normalizeQuantName(quantization));
    return i < 0 ? PRECISION_ORDER.length : i;
}

/**
 * Orders files from most to least precise: by known quantisation type, then (unknown or
 * equal types) by file size, larger first, then by path so the order is total.
 */
export function byPrecision<T extends { quantization: string | null; sizeBytes: number; path: string }>(files: readonly T[]): T[] {
    return [...files].sort((a, b) => precisionRank(a.quantization) - precisionRank(b.quantization) || b.sizeBytes - a.sizeBytes || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
