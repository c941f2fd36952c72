// The key and Outcome live in the shared vocabulary (src/vocabulary.ts); import them from there.
import type { Category, NeighbourhoodKey, Outcome, ParamValue } from "../vocabulary.js";
