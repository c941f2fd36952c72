import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const BIN = path.resolve("dist/cli/bin.js");
const dir = mkdtempSync(path.join(tmpdir(), "eddy-demo-fit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("eddy demo output", () => {
    it("fits in 100 columns, shows the decoding mode beside the scores, and withholds categories without judged instances", async () => {
        const db = path.join(dir, "demo.db");
        const { stdout } = await promisify(execFile)(process.execPath, [BIN, "demo", "--db", db, "--instances", "2", "--rounds", "1", "--templates", "list_every_kth,math_count_coprime"], {
            encoding: "utf8"
        });
        const lines = stdout.split("\n");
        expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
        expect(lines[0]).toMatch(/^configuration +mode +AS +CPS +CCS +PS +SF +IG +PF +NC +trunc$/);
        expect(lines[1]).toMatch(/^[─ ]+$/);
        // The reference backend solves everything; the tiny model's answers are all truncated: no data, not categorised.
        expect(stdout).toMatch(/^reference t=0 default +reproducible +1\.000 +1\.000 +1\.000 +100% +0% +0% +0% +0% +0$/m);
        expect(stdout).toMatch(/^eddy-tiny-f32 t=0 default +reproducible +– +– +– +0% +0% +0% +0% +100% +4$/m);
        expect(stdout).toContain(`database: ${db}`);
        expect(readFileSync(path.join(dir, "reports", "demo.html"), "utf8")).toContain("Not categorised");
    });
});
