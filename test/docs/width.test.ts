import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { BIN, cleanTmp, tmpDir } from "../run/helpers.js";
import { helpTree } from "../support/docsHelpTexts.js";
import { unwrapMessages } from "../support/messages.js";

/**
 * 100 columns beyond the walkthrough (test/docs/examples.ts holds README's commands to it): every
 * command's --help, and the text reports whose notes grow with names (mutation and loop studies).
 */

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const { EDDY_DB: _db, ...env } = process.env;

const eddy = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): { code: number | null; out: string } => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...env, ...extra }, encoding: "utf8", timeout: 240_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
};
const tooWide = (text: string): string[] => text.split("\n").filter((l) => [...l].length > 100);

describe("100 columns", () => {
    it("every command's --help, its example commands included (each whole on one line of at most 100 columns), wrapped at 100 columns", () => {
        const wide: string[] = [];
        const widest: number[] = [];
        let examples = 0;
        // Not a terminal (as here) the help is laid out for 100 columns, not commander's 80.
        for (const { words, text } of helpTree(env)) {
            wide.push(...tooWide(text).map((l) => `eddy ${words.join(" ")} --help: ${l}`));
            widest.push(Math.max(...text.split("\n").filter((l) => !/^\s*\$ /.test(l)).map((l) => [...l].length)));
            examples += text.split("\n").filter((l) => /^\s*\$ /.test(l)).length;
        }
        expect(wide).toEqual([]);
        expect(examples).toBeGreaterThan(40);
        // Wrapped at 100, not at 80: most help texts have a line past 80 columns (a long option's description).
        expect(widest.filter((w) => w > 80).length).toBeGreaterThan(widest.length / 2);
    });

    it("long eddy: errors wrap (continuation lines indented six spaces); a command, on its own line or quoted, stays whole", () => {
        const cwd = tmpDir("eddy-width-");
        writeFileSync(path.join(cwd, "loop.yaml"), "backend: reference\ntemplates: copy_last_n\ntop_q: 0.5\n");
        const cases: [string[], NodeJS.ProcessEnv][] = [
            // The judge's refusal where no sandbox can be had: it names 'eddy doctor' in its prose.
            [["run", "--backend", "reference", "--templates", "list_every_kth", "--instances", "1", "--rounds", "1", "--db", "n.db", "--no-progress", "--judge-workers", "1"], { EDDY_JUDGE_NO_NAMESPACES: "1" }],
            // A setting the schema does not know: the refusal lists every known one.
            [["loop", "run", "--config", "loop.yaml", "--db", "l.db"], {}],
            // A reading command on a database that is not there, deep in folders: the hint stays on its own line.
            [["report", "latest", "--db", `${"a-rather-long-folder-name/".repeat(2)}none.db`], {}]
        ];
        for (const [args, extra] of cases) {
            const r = eddy(args, cwd, extra);
            expect(r.code, r.out).not.toBe(0);
            const lines = r.out.trimEnd().split("\n");
            // Too long for one line: without wrapping it would pass 100 columns.
            expect(tooWide(unwrapMessages(r.out)).length, r.out).toBeGreaterThan(0);
            // A command on a line of its own (after a line ending in ':') is exempt: it is copied whole.
            const wide = lines.filter((l, i) => [...l].length > 100 && !(/^ {2}eddy /.test(l) && lines[i - 1]?.endsWith(":")));
            expect(wide, r.out).toEqual([]);
            expect(lines.filter((l) => /^\s/.test(l) && !/^ {2}eddy /.test(l)).every((l) => /^ {6}\S/.test(l)), r.out).toBe(true);
            expect(lines.filter((l) => l.startsWith("eddy")).every((l) => l.startsWith("eddy: ") && !l.startsWith("eddy: eddy:")), r.out).toBe(true);
            for (const l of lines) expect((l.match(/'/g) ?? []).length % 2, `a quoted command broken across lines: ${r.out}`).toBe(0);
        }
    });

    it("a mutation study's and a loop run's text reports, their notes naming every variant", () => {
        const cwd = tmpDir("eddy-width-");
        const embed = path.join(cwd, "eddy-tiny-embed");
        // One instance: the notes grow with the variants' names, not with the instances.
        const run = eddy(["mutate", "run", "-m", tiny.f32, "-t", "list_every_kth", "-M", "1", "-R", "1", "--embed-model", embed, "--threads", "1", "--max-tokens", "16", "--db", "m.db"], cwd);
        expect(run.code, run.out).toBe(0);
        const mutate = eddy(["mutate", "report", "latest", "--db", "m.db"], cwd);
        expect(mutate.code, mutate.out).toBe(0);
        // The tiny model's answers are all truncated: the note names every variant it left out.
        expect(mutate.out).toMatch(/no judged response under default, default-m/);
        expect(tooWide(mutate.out)).toEqual([]);
        expect(eddy(["loop", "run", "--backend", "reference", "-t", "list_every_kth", "-M", "2", "-N", "2", "--db", "l.db"], cwd).code).toBe(0);
        const loop = eddy(["loop", "report", "latest", "--db", "l.db"], cwd);
        expect(loop.code, loop.out).toBe(0);
        expect(loop.out).toMatch(/pass@loop1: share of tasks/);
        expect(tooWide(loop.out)).toEqual([]);
    });
});
