import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deriveSeed } from "../../src/util/seeds.js";

describe("deriveSeed", () => {
    it("is the first 4 bytes of sha256 over the JSON of its inputs (computed independently here)", () => {
        const expected = createHash("sha256").update('[42,"sum_index_range",3,1]').digest().readUInt32BE(0);
        expect(deriveSeed(42, "sum_index_range", 3, 1)).toBe(expected);
    });

    it("is a stable uint32 and separates its parts", () => {
        const s = deriveSeed(1, "t", 0, 0);
        expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
        expect(deriveSeed(1, "t", 0, 0)).toBe(s);
        // "1","2" must not collide with "12"
        expect(deriveSeed(1, 1, 2)).not.toBe(deriveSeed(1, 12));
        expect(deriveSeed(1, "t", 0, 1)).not.toBe(s);
        expect(deriveSeed(2, "t", 0, 0)).not.toBe(s);
    });
});
