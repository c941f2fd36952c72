/** Issue #47: `eddy judge … --code answer.py`, as its help prints it, on a machine without that file: words, not a raw ENOENT. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { messageLines } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");

describe("eddy judge --code with no such file", () => {
    it("says there is no such file and what to do, exit 66", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-judge-code-"));
        try {
            const r = spawnSync(process.execPath, [BIN, "judge", "--template", "list_every_kth", "--params", "[2, 3]", "--code", "answer.py"], { cwd: dir, encoding: "utf8" });
            expect(r.status).toBe(66);
            expect(messageLines(r.stderr)).toEqual(["eddy: cannot read --code answer.py: there is no such file (write the answer to it first, or give '-' and pipe the answer in)"]);
            expect(r.stderr).not.toMatch(/ENOENT/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
