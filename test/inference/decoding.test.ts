import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodingFor } from "../../src/inference/decoding.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: `src/${f}`, text: readFileSync(path.join(ROOT, "src", f), "utf8") }));

describe("decoding settings, built once for every command", () => {
    const knobs = { topK: 40, topP: 0.9, minP: 0.05, repeatPenalty: 1.1 };

    it("greedy keeps only the repeat penalty; sampling keeps every knob given; none is invented", () => {
        expect(decodingFor(knobs, 0)).toStrictEqual({ temperature: 0, repeatPenalty: 1.1 });
        expect(decodingFor(knobs, 0.8)).toStrictEqual({ temperature: 0.8, topK: 40, topP: 0.9, minP: 0.05, repeatPenalty: 1.1 });
        expect(decodingFor({}, 0)).toStrictEqual({ temperature: 0 });
        expect(decodingFor({ topP: 0.5 }, 1)).toStrictEqual({ temperature: 1, topP: 0.5 });
        // The key order is the cache key's: runs stored before keep hitting their cached responses.
        expect(JSON.stringify(decodingFor(knobs, 0.8))).toBe('{"temperature":0.8,"topK":40,"topP":0.9,"minP":0.05,"repeatPenalty":1.1}');
    });

    it("no command builds a decoding of its own: the request's decoding comes from decodingFor", () => {
        const literal = SRC.flatMap(({ file, text }) => text.split("\n").flatMap((l, i) => (/\bdecoding:\s*\{/.test(l) ? [`${file}:${i + 1}: ${l.trim()}`] : [])));
        expect(literal).toEqual([]);
        // The scan sees the literal form a command once used.
        expect(/\bdecoding:\s*\{/.test("                decoding: {")).toBe(true);
    });

    it("--temperature is declared once, beside the other shared study options", () => {
        // An import's --temperature decodes nothing: it records what published samples were drawn at.
        const declared = SRC.filter((s) => s.file !== "src/cli/commands/import/options.ts").flatMap(({ file, text }) => text.split("\n").flatMap((l, i) => (/["']--temperature </.test(l) ? [`${file}:${i + 1}`] : [])));
        expect(declared.map((d) => d.split(":")[0])).toEqual(["src/cli/commands/studyOptions.ts", "src/cli/commands/studyOptions.ts"]);
    });
});
