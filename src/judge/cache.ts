import { createHash } from "node:crypto";
import type { Template } from "../templates/types.js";
import type { ParamValue } from "../vocabulary.js";
import type { Verdict, VerdictCache } from "./types.js";

/** Default cache: verdicts in memory for the life of the pool (bounded, oldest dropped first). */
export class MemoryVerdictCache implements VerdictCache {
    private readonly map = new Map<string, Verdict>();

    constructor(private readonly limit = 100_000) {}

    get(key: string): Verdict | undefined {
        return this.map.get(key);
    }

    set(key: string, v: Verdict): void {
        if (this.map.size >= this.limit) {
            const oldest = this.map.keys().next().value;
            if (oldest !== undefined) this.map.delete(oldest);
        }
        this.map.set(key, v);
    }

    /** Number of verdicts held. */
    get size(): number {
        return this.map.size;
    }
}

/**
 * sha256 of (extracted code, template id + oracle hash, parameter tuple, judge version): identical
 * work, one verdict. The comparator, budget and K are in the oracle hash already (they live in the
 * YAML); they are added so that a Template built in code cannot alias a different one.
 */
export function verdictKey(code: string, t: Template, tuple: ParamValue[], judgeVersion: string): string {
    const settings = [t.comparator, t.budget.timeMs, t.budget.memoryMb, t.randomInputs, t.function, t.arity];
    return createHash("sha256").update(JSON.stringify([judgeVersion, t.id, t.oracleHash, settings, tuple, code])).digest("hex");
}
