import { logLine } from "../../messages.js";
import type { Command } from "commander";
import type { ReplayImportOptions } from "../../../import/replayImport.js";
import { EddyError } from "../../../util/errors.js";
import { defaultDbPath } from "../../../util/paths.js";

export function positiveInt(v: string): number {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new EddyError(`expected a positive integer, got '${v}'`);
    return n;
}

export function nonNegativeInt(v: string): number {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new EddyError(`expected a non-negative integer, got '${v}'`);
    return n;
}

/** The flags of an import that re-judges published answers in a replay run, in the order help shows them. */
export interface ReplayImportFlags {
    templates: string;
    db?: string;
    model?: string;
    temperature?: number;
    judgeWorkers?: number;
}

/** Adds the flags every replay import shares; each command words its own help. */
export function replayImportFlags(c: Command, help: { templates: string; defaultTemplates: string; model: string; temperature: string }): Command {
    return c
        .option("--templates <folder>", help.templates, help.defaultTemplates)
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .option("--model <name>", help.model)
        .option("--temperature <t>", help.temperature, (v) => {
            const t = Number(v);
            if (!Number.isFinite(t) || t < 0) throw new EddyError(`--temperature must be a non-negative number, got '${v}'`);
            return t;
        })
        .option("--judge-workers <n>", "judge worker processes", positiveInt);
}

/** The import's options from those flags, with its progress lines on stderr. */
export function replayImportOptions(o: ReplayImportFlags): ReplayImportOptions {
    return {
        templates: o.templates,
        ...(o.db ? { db: o.db } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.judgeWorkers ? { judgeWorkers: o.judgeWorkers } : {}),
        onLog: logLine
    };
}
