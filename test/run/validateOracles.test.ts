import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { validationKey } from "../../src/run/study/validateOracles.js";
import { openStore } from "../../src/store/Store.js";
import { loadAllTemplates } from "../../src/templates/loadTemplates.js";
import { GOOD_ORACLE, GOOD_YAML, TempTemplates } from "../templates/fixtures.js";
import { BIN, cleanTmp, countRows, tmpDir } from "./helpers.js";
import { unwrapMessages } from "../support/messages.js";

const exec = promisify(execFile);

/** The good oracle with a fixed test whose expected value is wrong when lo = hi (the edge tuple [0, 0] is instance #0). */
const BAD_ORACLE = GOOD_ORACLE.replace("def tests(*, lo, hi):\n    yield ([],), 0", "def tests(*, lo, hi):\n    yield ([5, 6, 7],), (0 if lo == hi else sum([5, 6, 7][lo:hi + 1]))");

let temp: TempTemplates | undefined;
afterEach(() => {
    temp?.dispose();
    temp = undefined;
});
afterAll(cleanTmp);

const study = (db: string) => normalizeStudyConfig({ backend: "reference", templates: "demo", instances: 3, rounds: 1, seed: 3, judgeWorkers: 1, db });

describe("oracle validation before judging (SPEC §2)", () => {
    it("stops a run whose oracle fails its own model solution, with one line, before anything is judged", async () => {
        temp = new TempTemplates();
        temp.write("demo", GOOD_YAML, BAD_ORACLE);
        const db = path.join(tmpDir(), "bad.db");
        await expect(runStudy(study(db), { library: temp.library })).rejects.toThrow(/^oracle validation failed before judging, nothing was judged: demo \(its model solution fails on instance #0 \[0,0\]: fixed test 1: wrong result\)/);
        expect(countRows(db, "verdicts")).toBe(0);
        // The CLI says it in one line and exits non-zero.
        const err = (await exec(process.execPath, [BIN, "run", "--backend", "reference", "-t", "demo", "-M", "3", "-R", "1", "--db", path.join(tmpDir(), "cli.db")], { env: { ...process.env } }).catch((e) => e)) as { code: number; stderr: string };
        expect(err.code).not.toBe(0);
        // Besides the line naming the run and its database and the progress line saying what it does: one line, the reason.
        const lines = unwrapMessages(err.stderr).trim().split("\n").filter((l) => !/^eddy: run \S+ \(database /.test(l) && !/^\[\S+\] validating oracles…$/.test(l));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^eddy: oracle validation failed before judging/);
    });

    it("validates once per oracle hash and instance set: the stored result is what later runs read", async () => {
        temp = new TempTemplates();
        temp.write("demo", GOOD_YAML);
        const db = path.join(tmpDir(), "good.db");
        const first = await runStudy(study(db), { library: temp.library });
        expect(first.status).toBe("complete");
        const t = loadAllTemplates(temp.library).find((x) => x.id === "demo")!;
        const store = openStore(db);
        try {
            const key = validationKey(t, store.instances(first.runId, "demo"));
            expect(store.oracleValidation(key)).toMatchObject({ ok: true });
            // Plant a failing record under the same key: a resume of the run (same oracle, same instances)
            // must read it rather than validate again, so it now fails with the planted detail.
            store.recordOracleValidation({ key, templateId: "demo", oracleHash: t.oracleHash, instances: 3, ok: false, result: { solutionFailures: [{ index: 1, params: [1, 2], detail: "planted" }] } });
        } finally {
            store.close();
        }
        await expect(runStudy({ ...study(db), resume: first.runId }, { library: temp.library })).rejects.toThrow(/instance #1 \[1,2\]: planted/);
    });
});
