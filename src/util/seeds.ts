import { createHash } from "node:crypto";

/**
 * A stable uint32 seed from a run seed and any parts (instance index, round, template id…):
 * the first four bytes of sha256 over the parts joined with an unambiguous separator.
 * Same inputs → same seed on every machine and Node version.
 */
export function deriveSeed(runSeed: number, ...parts: (string | number)[]): number {
    const h = createHash("sha256");
    h.update(JSON.stringify([runSeed, ...parts]));
    return h.digest().readUInt32BE(0);
}
