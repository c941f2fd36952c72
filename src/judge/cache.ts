import { createHash } from "node:crypto";
import type { ParamValue, Template } from "../templates/types.js";
import { deriveSeed } from "../util/seeds.js";
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

/** The instance's tuple in the template's parameter order. */
export function paramTuple(t: Template, bindings: Record<string, ParamValue>): ParamValue[] {
    return t.params.map((p) => {
        const v = bindings[p.name];
        if (v === undefined) throw new Error(`missing value for parameter '${p.name}' of template ${t.id}`);
        return v;
    });
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

/**
 * Seed of the random differential-testing inputs: stable over (template id, tuple), on any machine,
 * and independent of the study's seed so that every study judges an instance on the same inputs.
 */
export function inputSeed(templateId: string, tuple: ParamValue[]): string {
    return String(deriveSeed(0, "judge-inputs", templateId, JSON.stringify(tuple)));
}
