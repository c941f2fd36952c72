import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ROOT } from "../run/helpers.js";

/** Two shipped templates, copied, so engineers editing templates/ mid-test cannot change an oracle between nodes. */
export const TEMPLATES = ["copy_between_exclusive", "list_every_kth"];

/** Copy TEMPLATES with their oracles into `dir` and point EDDY_TEMPLATES / EDDY_ORACLES there; returns the undo. */
export function useFixedTemplates(dir: string): () => void {
    const saved = { t: process.env.EDDY_TEMPLATES, o: process.env.EDDY_ORACLES };
    for (const sub of ["templates", "oracles"]) mkdirSync(path.join(dir, sub), { recursive: true });
    for (const id of TEMPLATES) {
        copyFileSync(path.join(ROOT, "templates", `${id}.yaml`), path.join(dir, "templates", `${id}.yaml`));
        copyFileSync(path.join(ROOT, "oracles", `${id}.py`), path.join(dir, "oracles", `${id}.py`));
    }
    process.env.EDDY_TEMPLATES = path.join(dir, "templates");
    process.env.EDDY_ORACLES = path.join(dir, "oracles");
    return () => {
        if (saved.t === undefined) delete process.env.EDDY_TEMPLATES;
        else process.env.EDDY_TEMPLATES = saved.t;
        if (saved.o === undefined) delete process.env.EDDY_ORACLES;
        else process.env.EDDY_ORACLES = saved.o;
    };
}

/**
 * A store's content without integer ids or timings, row by row: runs by config hash, everything else by its
 * natural key. `withRun: false` leaves the study identity out too (for studies split across runs).
 */
export function exportStore(file: string, withRun = true): Record<string, string[]> {
    const db = new Database(file, { readonly: true });
    const run = withRun ? "r.config_hash" : "'-'";
    const q = (sql: string): string[] => (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort();
    try {
        return {
            runs: withRun ? q("SELECT config_hash, config_json, backend, seed, eddy_version, status FROM runs") : [],
            configurations: q(`SELECT DISTINCT ${run} AS run, c.model, c.temperature, c.wrapper, c.model_sha256, c.decoding_json FROM configurations c JOIN runs r ON r.id = c.run_id`),
            run_templates: q(`SELECT ${run} AS run, t.template_id, t.oracle_hash, t.grp, t.subgroups_json, t.function FROM run_templates t JOIN runs r ON r.id = t.run_id`),
            instances: q(`SELECT ${run} AS run, i.template_id, i.idx, i.params_json, i.bindings_json, i.question FROM instances i JOIN runs r ON r.id = i.run_id`),
            generations: q(
                `SELECT ${run} AS run, c.model, c.temperature, c.wrapper, g.template_id, g.instance_idx, g.round, g.seed, g.prompt_json, g.response, g.code,
                        g.stop_reason, g.prompt_tokens, g.generated_tokens, g.missing, v.category, v.judge_category, v.detail
                 FROM generations g JOIN configurations c ON c.id = g.config_id JOIN runs r ON r.id = c.run_id LEFT JOIN verdicts v ON v.generation_id = g.id`
            )
        };
    } finally {
        db.close();
    }
}
