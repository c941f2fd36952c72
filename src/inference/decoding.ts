import type { Decoding } from "./types.js";

/** The sampling knobs a command's settings may carry (each off unless given). */
export type SamplingSettings = Pick<Decoding, "topK" | "topP" | "minP" | "repeatPenalty">;

/**
 * The decoding of one temperature, built once for every command (run, quant, generate, loop, mutate,
 * audit): greedy at temperature 0 (the filters mean nothing there and would only split cache keys),
 * the sampling knobs otherwise; the repeat penalty applies to both.
 */
export function decodingFor(s: SamplingSettings, temperature: number): Decoding {
    const d: Decoding = { temperature };
    if (temperature !== 0) {
        if (s.topK !== undefined) d.topK = s.topK;
        if (s.topP !== undefined) d.topP = s.topP;
        if (s.minP !== undefined) d.minP = s.minP;
    }
    if (s.repeatPenalty !== undefined) d.repeatPenalty = s.repeatPenalty;
    return d;
}
