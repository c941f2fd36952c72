import { uniformInt } from "pure-rand/distribution/uniformInt";
import type { Domain, DomainKind } from "./types.js";
import { isPlainObject } from "./util.js";

/** One character drawn uniformly from an alphabet. */
export interface CharDomain extends Domain {
    kind: "char";
    /** Distinct characters, in the order written. */
    alphabet: string[];
}

const LOWERCASE = "abcdefghijklmnopqrstuvwxyz";

/** `{char: {alphabet: "abc"}}`; `{char: {}}` means the lowercase letters a–z. */
export const charDomain: DomainKind<CharDomain> = {
    kind: "char",
    parse(raw) {
        if (raw === null || raw === undefined) raw = {};
        if (!isPlainObject(raw)) throw new Error('char needs a mapping, e.g. {alphabet: "abc"}');
        for (const key of Object.keys(raw)) if (key !== "alphabet") throw new Error(`char: unknown key '${key}' (alphabet)`);
        const text = raw.alphabet ?? LOWERCASE;
        if (typeof text !== "string" || text.length === 0) throw new Error("char.alphabet must be a non-empty string");
        // Array.from splits by code point, so an alphabet may hold characters outside the BMP.
        return { kind: "char", alphabet: [...new Set(Array.from(text))] };
    },
    sample(domain, rng) {
        return domain.alphabet[uniformInt(rng, 0, domain.alphabet.length - 1)]!;
    },
    reject(domain, value) {
        if (typeof value !== "string") return `${JSON.stringify(value)} is not a character`;
        return domain.alphabet.includes(value) ? null : `${JSON.stringify(value)} is not in the alphabet`;
    }
};
