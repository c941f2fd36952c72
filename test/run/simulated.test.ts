import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { writeSimulatedAnswers } from "../../src/inference/replay/simulatedAnswers.js";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { openStore } from "../../src/store/Store.js";
import { loadOutcomes } from "../../src/store/outcomes.js";
import { scoreNeighbourhoods } from "../../src/scores/index.js";
import { selectTemplates } from "../../src/templates/loadTemplates.js";
import { cleanTmp, tmpDir } from "./helpers.js";
import { builtInLibrary } from "../../src/templates/library.js";

afterAll(cleanTmp);

describe("simulated flawed model (demo answers)", () => {
    // Four templates get flaw rates 0, 0.25, 0.5 and 1 in this order.
    const ids = "list_every_kth,math_count_coprime,search_find_in_window,string_remove_first_k";

    it("writes the same file for the same seed, and replays to perfect success at rate 0 and failures at rate 1", async () => {
        const dir = tmpDir();
        const templates = selectTemplates(builtInLibrary(), ids);
        const pool = await JudgePool.start({ workers: 1 });
        const a = path.join(dir, "a.jsonl");
        const b = path.join(dir, "b.jsonl");
        try {
            expect(await writeSimulatedAnswers(pool, templates, { instances: 6, rounds: 2, seed: 7, file: a })).toBe(4 * 6 * 2);
            await writeSimulatedAnswers(pool, templates, { instances: 6, rounds: 2, seed: 7, file: b });
        } finally {
            await pool.close();
        }
        expect(readFileSync(a, "utf8")).toBe(readFileSync(b, "utf8"));
        const first = JSON.parse(readFileSync(a, "utf8").split("\n")[0]!);
        expect(first).toMatchObject({ template: "list_every_kth", instance: 0, round: 0 });
        expect(first.response).toMatch(/^```python\n[\s\S]*def every_kth\(values\)/);

        const db = path.join(dir, "sim.db");
        const { runId } = await runStudy(normalizeStudyConfig({ backend: "replay", replay: a, templates: ids, instances: 6, rounds: 2, seed: 7, db, judgeWorkers: 1 }));
        const store = openStore(db, { readonly: true });
        const scores = scoreNeighbourhoods(loadOutcomes(store, [runId]));
        store.close();
        const as = Object.fromEntries(scores.map((s) => [s.template, s.AS]));
        expect(as.list_every_kth).toBe(1); // rate 0: always the model solution
        expect(as.string_remove_first_k).toBeLessThan(1); // rate 1: always the mutant, wrong somewhere
    });
});
