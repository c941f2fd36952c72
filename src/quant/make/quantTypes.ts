/**
 * The quantisation types `eddy quant make` asks llama-quantize for (its own table, tools/quantize/quantize.cpp,
 * llama.cpp as node-llama-cpp ships it), with what each needs of an importance matrix.
 */
export interface QuantType {
    /** llama-quantize's name (upper case). */
    name: string;
    /** An I-quant (IQ…): eddy requires an importance matrix for these (llama.cpp refuses the lowest without one). */
    iQuant: boolean;
    /** Whether llama.cpp's quantiser reads an importance matrix for this type (not Q8_0, F16, BF16, F32). */
    usesImatrix: boolean;
}

const NAMES = [
    "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0",
    "Q2_K", "Q2_K_S", "IQ3_XXS", "IQ3_S", "IQ3_M", "IQ3_XS", "Q3_K_S", "Q3_K_M", "Q3_K_L", "IQ4_NL", "IQ4_XS",
    "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "Q8_0", "F16", "BF16", "F32"
] as const;

/** llama-quantize's aliases, as it resolves them. */
const ALIASES: Record<string, string> = { Q3_K: "Q3_K_M", Q4_K: "Q4_K_M", Q5_K: "Q5_K_M" };

const NO_IMATRIX = new Set(["Q8_0", "F16", "BF16", "F32", "TQ1_0", "TQ2_0"]);

/** Every type `eddy quant make` knows, most precise last. */
export const QUANT_TYPES: readonly QuantType[] = NAMES.map((name) => ({ name, iQuant: name.startsWith("IQ"), usesImatrix: !NO_IMATRIX.has(name) }));

/** The type a name means (case-insensitive, aliases resolved), or undefined. */
export function quantType(name: string): QuantType | undefined {
    const upper = name.trim().toUpperCase();
    const resolved = ALIASES[upper] ?? upper;
    return QUANT_TYPES.find((t) => t.name === resolved);
}

/** Types that need an importance matrix: the I-quants and Q2_K_S (llama.cpp refuses Q2_K_S and IQ1/IQ2 without one). */
export function needsImatrix(t: QuantType): boolean {
    return t.iQuant || t.name === "Q2_K_S";
}
