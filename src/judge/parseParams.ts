import { compileConstraint } from "../templates/constraint.js";
import { rejectFromDomain } from "../templates/domains/registry.js";
import type { Domain } from "../templates/domains/types.js";
import type { Template } from "../templates/types.js";
import type { ParamValue } from "../vocabulary.js";
import { EddyError } from "../util/errors.js";

/** Parses `--params '<json tuple>'` for T: right length, each value in its domain, constraint holding. */
export function parseParamTuple(t: Template, text: string): Record<string, ParamValue> {
    let raw: unknown;
    try {
        raw = JSON.parse(text);
    } catch {
        throw new EddyError(`--params must be a JSON array such as [3, 7], got ${JSON.stringify(text)}`);
    }
    const names = t.params.map((p) => p.name);
    if (!Array.isArray(raw) || raw.length !== names.length)
        throw new EddyError(`template ${t.id} takes ${names.length} parameter(s) [${names.join(", ")}]; --params gave ${JSON.stringify(raw)}`);
    const bindings: Record<string, ParamValue> = {};
    t.params.forEach((p, j) => {
        const value = raw[j] as ParamValue;
        const why = rejectFromDomain(p.domain as Domain, value);
        if (why !== null) throw new EddyError(`parameter ${p.name} of ${t.id}: ${why}`);
        bindings[p.name] = value;
    });
    if (t.constraint !== undefined && !compileConstraint(t.constraint)(bindings))
        throw new EddyError(`parameters ${JSON.stringify(raw)} break the constraint of ${t.id}: ${t.constraint}`);
    return bindings;
}
