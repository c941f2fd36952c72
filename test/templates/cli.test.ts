import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { unwrapMessages } from "../support/messages.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist/cli/bin.js");

/** Runs the built CLI (test/globalSetup.ts builds dist/) with the shipped templates. */
function eddy(...args: string[]) {
    const env = { ...process.env };
    delete env.EDDY_TEMPLATES;
    delete env.EDDY_ORACLES;
    return execa(process.execPath, [bin, ...args], { cwd: root, env, reject: false });
}

describe("eddy templates (CLI)", () => {
    it("list --json prints every template with id, function, arity, group and subgroups", async () => {
        const r = await eddy("templates", "list", "--json");
        expect(r.exitCode, r.stderr).toBe(0);
        const list = JSON.parse(r.stdout) as Record<string, unknown>[];
        expect(list.length).toBeGreaterThanOrEqual(11);
        const ids = list.map((t) => t.id as string);
        expect(ids).toEqual([...ids].sort());
        for (const t of list) {
            expect(typeof t.function).toBe("string");
            expect(Number.isInteger(t.arity)).toBe(true);
            expect(["list", "string", "set", "searching", "copying", "math"]).toContain(t.group);
            expect(Array.isArray(t.subgroups)).toBe(true);
        }
        expect(list.find((t) => t.id === "list_rotate_right")).toMatchObject({ function: "rotate_right", arity: 1, group: "list" });
    });

    it("show --json gives the tuples as arrays and the rendered questions, edge tuples first", async () => {
        const r = await eddy("templates", "show", "list_filter_half_open", "--instances", "12", "--seed", "5", "--json");
        expect(r.exitCode, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as { template: { id: string }; instances: { index: number; params: number[]; question: string }[] };
        expect(out.template.id).toBe("list_filter_half_open");
        expect(out.instances).toHaveLength(12);
        expect(out.instances.map((i) => i.index)).toEqual([...Array(12).keys()]);
        expect(out.instances[0]!.params).toEqual([0, 0]); // the first edge tuple in the YAML
        for (const i of out.instances) {
            const [lo, hi] = i.params as [number, number];
            expect(lo).toBeLessThanOrEqual(hi);
            expect(i.question).toContain(`${lo} < x <= ${hi}`);
        }
        // Same seed, same tuples; in text form too.
        const again = await eddy("templates", "show", "list_filter_half_open", "--instances", "12", "--seed", "5", "--json");
        expect(JSON.parse(again.stdout).instances).toEqual(out.instances);
    });

    it("show of an unknown template is one clear line and a non-zero exit", async () => {
        const r = await eddy("templates", "show", "no_such_template");
        expect(r.exitCode).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim()).toMatch(/^eddy: unknown template 'no_such_template'/);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
    });

    it("list --group with an unknown group is one clear line, not an empty list", async () => {
        const r = await eddy("templates", "list", "--group", "strings", "--json");
        expect(r.exitCode).not.toBe(0);
        expect(r.stdout).toBe("");
        expect(unwrapMessages(r.stderr).trim()).toMatch(/^eddy: unknown group 'strings' \(one of: list, string/);
    });
});
