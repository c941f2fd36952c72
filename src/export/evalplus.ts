import { templateIdForTask } from "../import/humaneval/problems.js";
import { configurationResponses, type ResponseRow } from "./responses.js";
import type { ExportFormat } from "./types.js";

/**
 * The EvalPlus task id of a response: the task_id an imported problem carries as its only
 * parameter, else `<template>/<instance>` (a task EvalPlus does not know).
 */
export function evalPlusTaskId(r: Pick<ResponseRow, "template" | "instance" | "params">): string {
    const [only] = r.params;
    if (r.params.length === 1 && typeof only === "string" && templateIdForTask(only) === r.template) return only;
    return `${r.template}/${r.instance}`;
}

/**
 * EvalPlus samples (`evalplus.evaluate --samples`): one `{task_id, solution}` per response, each
 * task's rounds in order (its completion ids). The solution is the code eddy extracted; a
 * response without code keeps its place with an empty solution, which EvalPlus fails.
 */
export function evalPlusSamples(rows: ResponseRow[]): string {
    return rows.map((r) => JSON.stringify({ task_id: evalPlusTaskId(r), solution: r.code ?? "" }) + "\n").join("");
}

/** `--format evalplus`: samples.jsonl for `evalplus.evaluate`. */
export const EVALPLUS_FORMAT: ExportFormat = {
    id: "evalplus",
    help: "samples.jsonl for evalplus.evaluate",
    oneConfiguration: true,
    folder: false,
    write: ({ store, runId, config }) => {
        const { rows } = configurationResponses(store, runId, config);
        return { text: evalPlusSamples(rows), rows: rows.length };
    }
};
