import { deriveSeed } from "../util/seeds.js";
import type { ParamValue } from "../vocabulary.js";
import type { Template } from "./types.js";

// What identifies an instance to the judge: its tuple and the seed of its random inputs. Here, not in
// src/judge, because the strength measurement draws the same inputs without the judge.

/** The instance's tuple in the template's parameter order. */
export function paramTuple(t: Template, bindings: Record<string, ParamValue>): ParamValue[] {
    return t.params.map((p) => {
        const v = bindings[p.name];
        if (v === undefined) throw new Error(`missing value for parameter '${p.name}' of template ${t.id}`);
        return v;
    });
}

/**
 * Seed of the random differential-testing inputs: stable over (template id, tuple), on any machine,
 * and independent of the study's seed so that every study judges an instance on the same inputs.
 */
export function inputSeed(templateId: string, tuple: ParamValue[]): string {
    return String(deriveSeed(0, "judge-inputs", templateId, JSON.stringify(tuple)));
}
