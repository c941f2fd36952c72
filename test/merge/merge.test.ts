import { copyFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { MergeConflictError, mergeStores } from "../../src/store/merge.js";
import { BIN, cleanTmp, tmpDir } from "../run/helpers.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "./studyFixture.js";
import { libraryAt } from "../../src/templates/library.js";
import { unwrapMessages } from "../support/messages.js";

let dir: string;
let restore: () => void;

beforeAll(() => {
    dir = tmpDir("eddy-merge-");
    restore = useFixedTemplates(dir);
});
afterAll(() => {
    restore();
    cleanTmp();
});

/** One node's study: the reference backend, a fixed seed, its own database. */
async function node(name: string, templates: string): Promise<string> {
    const db = path.join(dir, `${name}.db`);
    const r = await runStudy(normalizeStudyConfig({ backend: "reference", templates, instances: 3, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db }), { library: libraryAt(dir) });
    expect(r.status).toBe("complete");
    return db;
}

/** Every row of every table, ids and timings included: what "changes nothing" is checked against. */
function dump(file: string): string {
    const db = new Database(file, { readonly: true });
    try {
        const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
        return names.map((t) => `${t}\n${(db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all() as unknown[]).map((r) => JSON.stringify(r)).join("\n")}`).join("\n");
    } finally {
        db.close();
    }
}

const rows = (file: string, sql: string): Record<string, unknown>[] => {
    const db = new Database(file, { readonly: true });
    try {
        return db.prepare(sql).all() as Record<string, unknown>[];
    } finally {
        db.close();
    }
};

describe("eddy merge", () => {
    let single: string, a: string, b: string, a2: string;
    beforeAll(async () => {
        single = await node("single", TEMPLATES.join(","));
        a = await node("nodeA", TEMPLATES[0]!);
        b = await node("nodeB", TEMPLATES[1]!);
        a2 = await node("nodeA2", TEMPLATES[0]!); // the same study as node A, run again on another machine
    });

    it("two nodes that each ran part of a study merge into the one-node store, row for row", () => {
        const into = path.join(dir, "split.db");
        const r = mergeStores([a, b], into);
        expect(r.sources.map((s) => s.inserted.generations)).toEqual([12, 12]);
        // A template list is part of a study's identity: each part is its own run, the rows are those of one run.
        expect(exportStore(into, false)).toEqual(exportStore(single, false));
        expect(exportStore(into, false).generations).toHaveLength(24);
        // Provenance names the node each generation came from.
        const prov = rows(into, "SELECT template_id, node_id, source_path, COUNT(*) AS n FROM provenance GROUP BY template_id, node_id, source_path ORDER BY template_id");
        expect(prov).toEqual([
            { template_id: TEMPLATES[0], node_id: r.sources[0]!.nodeId, source_path: a, n: 12 },
            { template_id: TEMPLATES[1], node_id: r.sources[1]!.nodeId, source_path: b, n: 12 }
        ]);
        expect(r.sources[0]!.nodeId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(r.sources[0]!.nodeId).not.toBe(r.sources[1]!.nodeId);
    });

    it("the same study run on two nodes (two run ids, one config hash) becomes one run; merging again changes nothing", () => {
        const idA = rows(a, "SELECT id FROM runs")[0]!.id;
        const idA2 = rows(a2, "SELECT id FROM runs")[0]!.id;
        expect(idA).not.toBe(idA2);
        const into = path.join(dir, "same.db");
        const r = mergeStores([a, a2], into);
        expect(r.sources[1]!.runs).toEqual({ [idA2 as string]: idA });
        expect(r.sources[1]!.inserted).toEqual({});
        expect(rows(into, "SELECT id FROM runs")).toEqual([{ id: idA }]);
        expect(exportStore(into)).toEqual(exportStore(a));
        expect(exportStore(a2)).toEqual(exportStore(a));

        const before = dump(into);
        const again = mergeStores([a, a2, b], into);
        expect(again.sources.slice(0, 2).map((s) => s.inserted)).toEqual([{}, {}]);
        const afterThird = dump(into);
        mergeStores([b, a2, a], into);
        expect(dump(into)).toBe(afterThird);
        expect(afterThird).not.toBe(before); // b was new the first time
    });

    it("keeps the first node's provenance through a merge of merges", () => {
        const m1 = path.join(dir, "m1.db");
        const m2 = path.join(dir, "m2.db");
        const ra = mergeStores([a], m1);
        const rb = mergeStores([b], m2);
        const into = path.join(dir, "top.db");
        const top = mergeStores([m1, m2], into);
        const nodes = rows(into, "SELECT DISTINCT node_id, source_path FROM provenance ORDER BY source_path").map((r) => r.node_id);
        expect(nodes).toEqual([ra.sources[0]!.nodeId, rb.sources[0]!.nodeId]);
        expect(nodes).not.toContain(top.sources[0]!.nodeId);
        expect(exportStore(into, false)).toEqual(exportStore(single, false));
    });

    it("refuses conflicting rows with a report and changes nothing", async () => {
        const bad = path.join(dir, "bad.db");
        copyFileSync(a2, bad);
        const db = new Database(bad);
        db.prepare("UPDATE generations SET response = response || ' (edited)' WHERE id = (SELECT MIN(id) FROM generations)").run();
        db.prepare("UPDATE verdicts SET category = 'runtime_error' WHERE generation_id = (SELECT MAX(generation_id) FROM verdicts) AND category != 'runtime_error'").run();
        db.prepare("UPDATE instances SET question = 'something else' WHERE idx = 1").run();
        db.close();
        const into = path.join(dir, "conflict.db");
        mergeStores([a], into);
        const before = dump(into);

        let err: unknown;
        try {
            mergeStores([b, bad], into);
        } catch (e) {
            err = e;
        }
        expect(err).toBeInstanceOf(MergeConflictError);
        const conflicts = (err as MergeConflictError).conflicts;
        expect(conflicts.map((c) => `${c.table}.${c.column}`).sort()).toEqual(["generations.response", "instances.question", "verdicts.category"]);
        expect(conflicts.find((c) => c.table === "generations")!.incoming).toMatch(/ \(edited\)$/);
        expect(dump(into)).toBe(before); // b's rows, new and fine, were not merged either: one transaction

        const report = path.join(dir, "conflicts.json");
        const cli = await execa("node", [BIN, "merge", b, bad, "--into", into, "--report", report], { reject: false, env: process.env });
        expect(cli.exitCode).toBe(65);
        expect(unwrapMessages(cli.stderr)).toMatch(/^conflict: bad\.db: generation .* response differs/m);
        expect(unwrapMessages(cli.stderr).trim().split("\n").at(-1)).toBe("eddy: refused: 3 conflicting rows (same key, different content); nothing was merged");
        expect(JSON.parse(readFileSync(report, "utf8"))).toHaveLength(3);
        expect(dump(into)).toBe(before);
    });

    it("refuses a table it does not know instead of dropping it, and names bad inputs in one line", async () => {
        const odd = path.join(dir, "odd.db");
        copyFileSync(b, odd);
        const db = new Database(odd);
        db.exec("CREATE TABLE shiny_results (x TEXT); INSERT INTO shiny_results VALUES ('kept')");
        db.close();
        const into = path.join(dir, "odd-into.db");
        expect(() => mergeStores([odd], into)).toThrow(/has a table merge does not know \('shiny_results', 1 rows\)/);
        expect(existsSync(into)).toBe(false);

        const missing = await execa("node", [BIN, "merge", path.join(dir, "nope.db"), "--into", into], { reject: false });
        expect(missing.exitCode).not.toBe(0);
        expect(unwrapMessages(missing.stderr).trim()).toMatch(/^eddy: no database at .*nope\.db$/);
        const self = await execa("node", [BIN, "merge", b, "--into", b], { reject: false });
        expect(unwrapMessages(self.stderr).trim()).toMatch(/^eddy: .* is the target itself/);

        const ok = await execa("node", [BIN, "merge", a, b, "--into", path.join(dir, "cli.db")], { reject: false, env: process.env });
        expect(ok.exitCode).toBe(0);
        // Lines wrap at 100 columns, continuations indented: read them joined.
        expect(ok.stdout.replace(/\n {4,}/g, " ")).toMatch(/nodeB\.db \(node [0-9A-Z]{26}\): new runs 1, configurations 2, .*generations 12/);
    });
});
