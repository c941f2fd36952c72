import type { Command } from "commander";
import { JudgePool } from "../../../../judge/JudgePool.js";
import { validateTemplate } from "../../../../judge/validateTemplate.js";
import { loadAllTemplates, selectTemplates } from "../../../../templates/loadTemplates.js";
import { sampleInstances } from "../../../../templates/instances.js";
import type { Template } from "../../../../templates/types.js";
import { EddyError, oneLine } from "../../../../util/errors.js";
import { parseCount, parseSeed } from "../describe.js";

/** Fewer mutants than this and an oracle's power to reject wrong answers is not shown (issue 2). */
export const MIN_MUTANTS = 3;

/** What `validate` found for one template. */
interface TemplateReport {
    id: string;
    instances: number;
    solutionPassed: number;
    solutionFailures: { index: number; params: unknown[]; category: string; detail: string }[];
    mutants: { name: string; killed: boolean; killedOn?: number; category?: string }[];
    killRate: number;
    /** A problem that stopped validation of this template (sampling failed, too few mutants…). */
    error?: string;
    ok: boolean;
}

async function validateOne(pool: JudgePool, t: Template, m: number, seed: number): Promise<TemplateReport> {
    const failed = (err: unknown): TemplateReport => ({ id: t.id, instances: 0, solutionPassed: 0, solutionFailures: [], mutants: [], killRate: 0, error: oneLine(err), ok: false });
    let instances;
    try {
        instances = sampleInstances(t, m, seed);
    } catch (err) {
        return failed(err);
    }
    let r;
    try {
        r = await validateTemplate(pool, t, instances);
    } catch (err) {
        // An oracle that does not load is this template's failure; the others are still checked.
        if (err instanceof EddyError) return failed(err);
        throw err;
    }
    const solutionFailures = r.solutionFailures.map((f) => ({ index: f.index, params: f.params, category: f.verdict.category, detail: f.verdict.detail }));
    const mutants = r.mutants.map((x) => ({ name: x.name, killed: x.killed, ...(x.killedOn === undefined ? {} : { killedOn: x.killedOn }), ...(x.category === undefined ? {} : { category: x.category }) }));
    const error = mutants.length < MIN_MUTANTS ? `only ${mutants.length} mutant(s) in the oracle; write at least ${MIN_MUTANTS} (def mutant_<what>(…))` : undefined;
    const ok = solutionFailures.length === 0 && mutants.every((x) => x.killed) && !error;
    return { id: t.id, instances: instances.length, solutionPassed: instances.length - solutionFailures.length, solutionFailures, mutants, killRate: r.killRate, ...(error ? { error } : {}), ok };
}

function reportText(r: TemplateReport): string {
    const killed = r.mutants.filter((x) => x.killed).length;
    const head = `${r.ok ? "ok  " : "FAIL"} ${r.id}: solution ${r.solutionPassed}/${r.instances}, mutants killed ${killed}/${r.mutants.length} (kill rate ${(r.killRate * 100).toFixed(0)}%)`;
    const lines = [head];
    const survivors = r.mutants.filter((x) => !x.killed).map((x) => x.name);
    if (survivors.length) lines.push(`     survived: ${survivors.join(", ")}`);
    for (const f of r.solutionFailures.slice(0, 3)) lines.push(`     solution failed on #${f.index} ${JSON.stringify(f.params)}: ${f.category}: ${oneLine(f.detail)}`);
    if (r.solutionFailures.length > 3) lines.push(`     … and ${r.solutionFailures.length - 3} more failing instance(s)`);
    if (r.error) lines.push(`     ${r.error}`);
    return lines.join("\n") + "\n";
}

/** `eddy templates validate [ids...]`: each oracle's model solution passes it, and its mutants are rejected. */
export function registerValidateCommand(parent: Command): void {
    parent
        .command("validate")
        .description("Check oracles: the model solution must pass every instance, and every mutant (plausible wrong solution) must be rejected")
        .argument("[ids...]", "template ids or problem group names (default: all templates)")
        .option("-m, --instances <m>", "instances per template (M)", parseCount, 100)
        .option("--seed <seed>", "neighbourhood seed", parseSeed, 0)
        .option("--workers <n>", "judge worker processes (default: one per core)", parseCount)
        .option("--json", "print a JSON array (one entry per template) on stdout and nothing else")
        .addHelpText("after", "\nExit status is 1 when any model solution fails or any mutant survives.\n\nExamples:\n  $ eddy templates validate\n  $ eddy templates validate list_rotate_right set_add_range --instances 20\n  $ eddy templates validate string --json")
        .action(async (ids: string[], opts: { instances: number; seed: number; workers?: number; json?: boolean }) => {
            if (opts.instances < 1) throw new EddyError("--instances must be at least 1");
            if (opts.workers !== undefined && opts.workers < 1) throw new EddyError("--workers must be at least 1");
            const templates = ids.length ? selectTemplates(ids.join(",")) : loadAllTemplates();
            if (templates.length === 0) throw new EddyError("no templates to validate");
            const pool = await JudgePool.start(opts.workers === undefined ? {} : { workers: opts.workers });
            const reports: TemplateReport[] = [];
            try {
                for (const t of templates) {
                    const r = await validateOne(pool, t, opts.instances, opts.seed);
                    reports.push(r);
                    if (!opts.json) process.stdout.write(reportText(r));
                }
            } finally {
                await pool.close();
            }
            const failed = reports.filter((r) => !r.ok).length;
            if (opts.json) process.stdout.write(JSON.stringify(reports, null, 2) + "\n");
            else process.stdout.write(`${reports.length - failed}/${reports.length} template(s) valid\n`);
            if (failed > 0) process.exitCode = 1;
        });
}
