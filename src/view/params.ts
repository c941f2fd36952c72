import { tuple } from "../report/format.js";
import type { ParamValue } from "../vocabulary.js";

/**
 * An instance's parameters by name, as its template names them (the stored bindings: name → value, in
 * the template's order), so a reader sees `lo=1, hi=3` rather than `(1, 3)`. Where the bindings do not
 * name every value of the tuple (an instance stored without them), the tuple as it is.
 */
export function namedParams(bindings: Record<string, unknown> | undefined, params: readonly unknown[]): { name: string; value: string }[] {
    const names = bindings ? Object.keys(bindings) : [];
    if (names.length === params.length && names.length > 0) return names.map((name, i) => ({ name, value: JSON.stringify(params[i] ?? bindings![name]) }));
    return params.map((p, i) => ({ name: `p${i + 1}`, value: JSON.stringify(p) }));
}

/** The parameters in one line: `lo=1, hi=3` (the tuple `(1, 3)` when they have no names). */
export function paramsText(bindings: Record<string, unknown> | undefined, params: readonly unknown[]): string {
    const names = bindings ? Object.keys(bindings) : [];
    if (names.length === params.length && names.length > 0) return namedParams(bindings, params).map((p) => `${p.name}=${p.value}`).join(", ");
    return tuple(params as ParamValue[]);
}

/** The names of a template's parameters, from one of its instances (none when they are not stored). */
export function paramNames(instances: readonly { bindings: Record<string, unknown>; params: readonly unknown[] }[]): string[] | undefined {
    const first = instances[0];
    if (!first) return undefined;
    const names = Object.keys(first.bindings);
    return names.length === first.params.length && names.length > 0 ? names : undefined;
}
