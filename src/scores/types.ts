import type { Category } from "../judge/types.js";
import type { ParamValue } from "../templates/types.js";

// The key and Outcome live in the shared vocabulary (src/vocabulary.ts); re-exported for existing imports.
import type { NeighbourhoodKey, Outcome } from "../vocabulary.js";
export type { NeighbourhoodKey, Outcome } from "../vocabulary.js";
