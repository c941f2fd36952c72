/** True for a YAML mapping (a plain object), false for lists, scalars and null. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
    return typeof v === "object" && v !== null && !Array.isArray(v);
}
