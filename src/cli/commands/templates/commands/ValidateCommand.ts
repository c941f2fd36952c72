import { note } from "../../../messages.js";
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { JudgePool } from "../../../../judge/JudgePool.js";
import { validateTemplate } from "../../../../judge/validateTemplate.js";
import { loadAllTemplates, selectTemplates } from "../../../../templates/loadTemplates.js";
import { sampleInstances } from "../../../../templates/instances.js";
import { smallNeighbourhoodNote } from "../../../../run/plan.js";
import { missedGoals, STRENGTH_GOALS } from "../../../../templates/strength/goals.js";
import { measureStrength, type StrengthMeasure } from "../../../../templates/strength/measure.js";
import type { Instance, Template } from "../../../../templates/types.js";
import { EddyError, oneLine } from "../../../../util/errors.js";
import { parseCount, parseSeed } from "../describe.js";
import { templateLibrary } from "../../../templateLibrary.js";

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
    /** With --strength: branch coverage, edge hits and the goals missed (ok includes them). */
    strength?: StrengthMeasure & { goalsMissed: string[] };
    /** Loader warnings (a missing `ambiguity:` or `returns:`). */
    warnings: string[];
    ok: boolean;
}

/** A template whose validation stopped (sampling failed, the oracle does not load…). */
function failedReport(t: Template, err: unknown): TemplateReport {
    return { id: t.id, instances: 0, solutionPassed: 0, solutionFailures: [], mutants: [], killRate: 0, error: oneLine(err), warnings: t.warnings ?? [], ok: false };
}

/**
 * The quick form (the default): oracles are trusted code, so the model solution and every mutant
 * run in one plain Python process per template (strength.py, with the judge's own comparator), and
 * one answer per template, the model solution on its first instance, goes through the real
 * sandboxed judge to show that the oracle works there too.
 */
async function validateQuick(pool: JudgePool, t: Template, m: number, seed: number, strength: boolean): Promise<TemplateReport> {
    const failed = (err: unknown): TemplateReport => failedReport(t, err);
    let instances: Instance[];
    let measure: StrengthMeasure;
    let judged: { category: string; detail: string };
    try {
        instances = sampleInstances(t, m, seed);
        const first = instances[0]!;
        const [measured, verdict] = await Promise.all([
            measureStrength(t, instances, { check: true }),
            pool.answerSource(t, first.bindings).then((code) => pool.judge({ template: t, bindings: first.bindings, code }))
        ]);
        measure = measured;
        judged = verdict;
    } catch (err) {
        if (err instanceof EddyError) return failed(err);
        throw err;
    }
    const check = measure.check ?? { solutionFailures: [], mutants: [] };
    const solutionFailures = check.solutionFailures.map((f) => ({ index: instances[f.index]!.index, params: instances[f.index]!.params, category: "assertion_error", detail: f.detail }));
    if (judged.category !== "passed" && !check.solutionFailures.some((f) => f.index === 0))
        solutionFailures.unshift({ index: instances[0]!.index, params: instances[0]!.params, category: judged.category, detail: "through the sandboxed judge: " + judged.detail });
    const mutants = check.mutants.map((x) => {
        const category = x.category;
        return { name: x.name, killed: x.killed, ...(x.killedOn === undefined ? {} : { killedOn: instances[x.killedOn]!.index }), ...(category === undefined ? {} : { category }) };
    });
    const killRate = mutants.length ? mutants.filter((x) => x.killed).length / mutants.length : 0;
    return finishReport(t, instances, solutionFailures, mutants, killRate, strength ? measure : undefined);
}

/** The report of one template from its verdicts (shared by the quick form and --through-judge). */
function finishReport(
    t: Template,
    instances: Instance[],
    solutionFailures: TemplateReport["solutionFailures"],
    mutants: TemplateReport["mutants"],
    killRate: number,
    measure: StrengthMeasure | undefined
): TemplateReport {
    const error = mutants.length < MIN_MUTANTS ? `only ${mutants.length} mutant(s) in the oracle; write at least ${MIN_MUTANTS} (def mutant_<what>(…))` : undefined;
    let ok = solutionFailures.length === 0 && mutants.every((x) => x.killed) && !error;
    let strengthReport: TemplateReport["strength"];
    if (measure) {
        const goalsMissed = missedGoals({ template: t, solutionFailures: solutionFailures.length, mutants: mutants.length, killRate, measure });
        strengthReport = { ...measure, goalsMissed };
        ok &&= goalsMissed.length === 0;
    }
    return {
        id: t.id,
        instances: instances.length,
        solutionPassed: instances.length - solutionFailures.length,
        solutionFailures,
        mutants,
        killRate,
        ...(error ? { error } : {}),
        ...(strengthReport ? { strength: strengthReport } : {}),
        warnings: t.warnings ?? [],
        ok
    };
}

async function validateOne(pool: JudgePool, t: Template, m: number, seed: number, strength: boolean): Promise<TemplateReport> {
    const failed = (err: unknown): TemplateReport => failedReport(t, err);
    let instances: Instance[];
    try {
        instances = sampleInstances(t, m, seed);
    } catch (err) {
        return failed(err);
    }
    // The traced run is a separate Python process: it overlaps with the judge pool's work. Both
    // are awaited before anything is reported, so no judging outlives this template.
    const [judged, traced] = await Promise.allSettled([validateTemplate(pool, t, instances), strength ? measureStrength(t, instances) : Promise.resolve(undefined)]);
    for (const settled of [judged, traced]) {
        if (settled.status === "fulfilled") continue;
        // An oracle that does not load is this template's failure; the others are still checked.
        if (settled.reason instanceof EddyError) return failed(settled.reason);
        throw settled.reason;
    }
    const r = (judged as PromiseFulfilledResult<Awaited<ReturnType<typeof validateTemplate>>>).value;
    const measure = (traced as PromiseFulfilledResult<StrengthMeasure | undefined>).value;
    const solutionFailures = r.solutionFailures.map((f) => ({ index: f.index, params: f.params, category: f.verdict.category, detail: f.verdict.detail }));
    const mutants = r.mutants.map((x) => ({ name: x.name, killed: x.killed, ...(x.killedOn === undefined ? {} : { killedOn: x.killedOn }), ...(x.category === undefined ? {} : { category: x.category }) }));
    return finishReport(t, instances, solutionFailures, mutants, r.killRate, measure);
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** The strength lines of one template: coverage by kind of input, edge hits, goals missed. */
function strengthText(s: NonNullable<TemplateReport["strength"]>): string[] {
    const cov = (c: StrengthMeasure["fixed"]) => (c.branches === 0 ? "no branches" : `${pct(c.coverage)} (${c.covered}/${c.branches})`);
    const lines = [`     branch coverage: fixed tests ${cov(s.fixed)}, random inputs ${cov(s.random)}`];
    if (s.edges.names.length)
        lines.push(`     edges hit by random inputs: ${s.edges.names.map((n) => `${n} ${pct(s.edges.randomShare[n] ?? 0)}`).join(", ")}; any ${pct(s.edges.randomWithAnyEdge)}`);
    for (const note of s.notes) lines.push(`     note: ${note}`);
    for (const miss of s.goalsMissed) lines.push(`     goal missed: ${miss}`);
    return lines;
}

/** Totals over the templates for `--strength --json`. */
function strengthSummary(reports: TemplateReport[]) {
    const measured = reports.filter((r) => r.strength);
    const mutants = reports.reduce((n, r) => n + r.mutants.length, 0);
    const killed = reports.reduce((n, r) => n + r.mutants.filter((x) => x.killed).length, 0);
    const min = (xs: number[]) => (xs.length ? Math.min(...xs) : null);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    return {
        templates: reports.length,
        meetingGoals: reports.filter((r) => r.ok).length,
        missingGoals: reports.filter((r) => !r.ok).map((r) => r.id),
        mutants,
        killRate: mutants ? killed / mutants : 0,
        minMutantsPerTemplate: min(reports.map((r) => r.mutants.length)),
        fixedCoverage: { min: min(measured.map((r) => r.strength!.fixed.coverage)), mean: mean(measured.map((r) => r.strength!.fixed.coverage)) },
        randomCoverage: { min: min(measured.map((r) => r.strength!.random.coverage)), mean: mean(measured.map((r) => r.strength!.random.coverage)) },
        withEdges: measured.filter((r) => r.strength!.edges.names.length > 0).length,
        randomWithAnyEdge: mean(measured.filter((r) => r.strength!.edges.names.length > 0).map((r) => r.strength!.edges.randomWithAnyEdge))
    };
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
    if (r.strength) lines.push(...strengthText(r.strength));
    if (!r.strength) for (const w of r.warnings) lines.push(`     warning: ${w}`);
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
        .option("--workers <n>", "judge worker processes, and templates checked at once (default: one per core)", parseCount)
        .option("--through-judge", "judge every instance and every mutant in the sandboxed judge (slow) instead of in one trusted Python process per template")
        .option("--strength", `also measure oracle strength: branch coverage of the model solution by the fixed tests and by the random inputs, edge-case hits; goals: >= ${STRENGTH_GOALS.minMutants} mutants, kill rate 1, coverage >= ${STRENGTH_GOALS.fixedCoverage} (fixed) and >= ${STRENGTH_GOALS.randomCoverage} (random), 'returns:' and 'ambiguity:' present`)
        .option("--json", "print JSON on stdout and nothing else: an array (one entry per template), or with --strength {goals, summary, templates}")
        .addHelpText(
            "after",
            "\nOracles are trusted code: by default the model solution and the mutants run in one plain Python process per template (the judge's own comparator), and the model solution on each template's first instance also goes through the sandboxed judge. --through-judge judges everything in the sandbox.\n\nExit status is 1 when any model solution fails or any mutant survives, and with --strength when any template misses a goal.\n\nExamples:\n  $ eddy templates validate\n  $ eddy templates validate list_rotate_right set_add_range --instances 20\n  $ eddy templates validate string --instances 20 --json\n  $ eddy templates validate --strength\n  $ eddy templates validate math_factorial_mod --strength --json"
        )
        .action(async (ids: string[], opts: { instances: number; seed: number; workers?: number; json?: boolean; strength?: boolean; throughJudge?: boolean }) => {
            if (opts.instances < 1) throw new EddyError("--instances must be at least 1");
            if (opts.workers !== undefined && opts.workers < 1) throw new EddyError("--workers must be at least 1");
            const library = templateLibrary();
            const templates = ids.length ? selectTemplates(library, ids.join(",")) : loadAllTemplates(library);
            if (templates.length === 0) throw new EddyError("no templates to validate");
            const pool = await JudgePool.start(opts.workers === undefined ? {} : { workers: opts.workers });
            const reports: TemplateReport[] = [];
            try {
                if (opts.throughJudge) {
                    for (const t of templates) {
                        const r = await validateOne(pool, t, opts.instances, opts.seed, opts.strength === true);
                        reports.push(r);
                        if (!opts.json) process.stdout.write(reportText(r));
                    }
                } else {
                    // Several templates at once, reported in order as each is done.
                    const done: (TemplateReport | undefined)[] = templates.map(() => undefined);
                    let next = 0;
                    let shown = 0;
                    const lane = async () => {
                        while (next < templates.length) {
                            const k = next++;
                            done[k] = await validateQuick(pool, templates[k]!, opts.instances, opts.seed, opts.strength === true);
                            for (; shown < done.length && done[shown]; shown++) if (!opts.json) process.stdout.write(reportText(done[shown]!));
                        }
                    };
                    await Promise.all(Array.from({ length: Math.max(1, opts.workers ?? availableParallelism()) }, lane));
                    reports.push(...(done as TemplateReport[]));
                }
            } finally {
                await pool.close();
            }
            const failed = reports.filter((r) => !r.ok).length;
            if (opts.json && opts.strength) process.stdout.write(JSON.stringify({ goals: STRENGTH_GOALS, summary: strengthSummary(reports), templates: reports }, null, 2) + "\n");
            else if (opts.json) process.stdout.write(JSON.stringify(reports, null, 2) + "\n");
            else process.stdout.write(`${reports.length - failed}/${reports.length} template(s) ${opts.strength ? "valid and meeting the strength goals" : "valid"}\n`);
            // Said once: a neighbourhood smaller than M is validated on every instance it has.
            const small = smallNeighbourhoodNote(reports.filter((r) => r.instances > 0).map((r) => ({ id: r.id, n: r.instances })), opts.instances);
            if (small) note(small);
            if (failed > 0) process.exitCode = 1;
        });
}
