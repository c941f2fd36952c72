import { EddyError } from "../util/errors.js";
import { exportRows, runInfo, type ConfigurationInfo, type RunInfo } from "../store/outcomes.js";
import type { Store } from "../store/Store.js";

/** One response row of `eddy export` (see exportRows), with the fields the format writers read. */
export type ResponseRow = ReturnType<typeof exportRows>[number] & {
    config: string;
    template: string;
    instance: number;
    params: unknown[];
    round: number;
    seed: number;
    code: string | null;
    category: string;
    detail: string;
    response: string;
};

/** One configuration's responses of a run, ordered by template, instance and round. */
export interface ConfigurationResponses {
    run: RunInfo;
    configuration: ConfigurationInfo;
    rows: ResponseRow[];
}

/**
 * The responses of one configuration of a run: formats that hold one model (EvalPlus samples,
 * an inspect log) export one configuration; `label` picks it when the run has several.
 */
export function configurationResponses(store: Store, runId: string, label?: string): ConfigurationResponses {
    const run = runInfo(store, runId);
    const labels = run.configurations.map((c) => c.label);
    const configuration = label === undefined ? (run.configurations.length === 1 ? run.configurations[0] : undefined) : run.configurations.find((c) => c.label === label);
    if (!configuration)
        throw new EddyError(
            label === undefined
                ? `run ${run.id} has ${labels.length} configurations; pick one with --config (${labels.map((l) => `'${l}'`).join(", ")})`
                : `run ${run.id} has no configuration '${label}' (${labels.map((l) => `'${l}'`).join(", ")})`
        );
    const rows = (exportRows(store, run.id) as ResponseRow[])
        .filter((r) => r.config === configuration.label)
        .sort((a, b) => (a.template < b.template ? -1 : a.template > b.template ? 1 : a.instance - b.instance || a.round - b.round));
    return { run, configuration, rows };
}

/**
 * The question of each instance (`template|instance`) as the problem states it, without eddy's
 * prompt wrapper: what stands for the prompt of answers imported from another harness, whose
 * actual prompt is unknown.
 */
export function instanceQuestions(store: Store, runId: string, rows: ResponseRow[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const t of new Set(rows.map((r) => r.template))) for (const i of store.instances(runId, t)) out.set(`${t}|${i.index}`, i.question);
    return out;
}
