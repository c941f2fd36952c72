import { logLine, note } from "../messages.js";
import path from "node:path";
import type { Command } from "commander";
import { auditDeterminism, determinismLines, recordAudit } from "../../audit/determinism.js";
import { DEFAULT_GROUP_SIZE, parseStudySettings, type StudySettings } from "../../run/config.js";
import { BACKEND_NAMES, BACKEND_OPTIONS, backendDescriptor, DEFAULT_BACKEND, PARALLEL_KEYS, type BackendOption } from "../../inference/backends.js";
import { loadAllTemplates } from "../../templates/loadTemplates.js";
import { openStore } from "../../store/Store.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { TEMPERATURE_OPTION, backendFlagValues, collect, stopOnSigint } from "./studyOptions.js";
import { templateLibrary } from "../templateLibrary.js";

interface DeterminismFlags {
    model: string;
    templates?: string;
    instances: string;
    rounds: string;
    temperature?: string;
    seed: string;
    maxTokens: string;
    threads: string;
    backend?: string;
    groupSize?: string;
    contextSize?: string;
    promptFormat?: string;
    fast?: boolean;
    judgeWorkers?: string;
    allowUnsandboxed?: boolean;
    db?: string;
    json?: boolean;
    /** Each backend's own flags by key (--base-url, --gpu, …); the parallel ones (--groups, --sequences, --concurrency) as lists of counts. */
    [backendFlag: string]: unknown;
}

/** An option's long flag (`--base-url`). */
const flagOf = (o: BackendOption): string => o.flags.split(/[ ,]+/).find((x) => x.startsWith("--"))!;
/** The long flag of a backend's setting key, without its dashes. */
const optionFlag = (key: string): string => flagOf(BACKEND_OPTIONS.find((o) => o.key === key)!).slice(2);

/** A few templates, one per problem group, so the audit's prompts differ in shape. */
function defaultTemplates(n: number): string {
    const picked = new Map<string, string>();
    for (const t of loadAllTemplates(templateLibrary())) if (!picked.has(t.group) && picked.size < n) picked.set(t.group, t.id);
    return [...picked.values()].join(",");
}

/** `eddy audit determinism`: do a model's responses depend on the session or the batching? */
export function registerAuditCommand(program: Command): void {
    const audit = program
        .command("audit")
        .description("Audits of how far results can be trusted")
        .addHelpText("after", "\nExamples:\n  $ eddy audit determinism -m models/eddy-tiny-f32.gguf -t copy_block -M 2 --max-tokens 16");
    const cmd = audit
        .command("determinism")
        .description(
            "Answer the same queries in several fresh sessions (one group or sequence at a time, the same again, more at once, and in lockstep mode a session interrupted part-way and resumed) and report the share of responses and verdicts that differ and where they first diverge; recorded on the model for reports"
        )
        .requiredOption("-m, --model <file>", "GGUF model file (with --backend server: the served model's name)")
        .option("--backend <name>", `what answers: ${BACKEND_NAMES.join(" | ")} (default ${DEFAULT_BACKEND})`)
        .option("-t, --templates <spec>", "templates (default: one per problem group, up to 3)")
        .option("-M, --instances <M>", "instances per template", "4")
        .option("-R, --rounds <R>", "rounds per instance", "2")
        .option(...TEMPERATURE_OPTION.one)
        .option("--seed <S>", "run seed", "1")
        .option("--max-tokens <N>", "maximum generated tokens per response", "128")
        .option("--threads <n>", "inference threads", "1")
        .option("--group-size <G>", "members per lockstep group, as for eddy run (default 8); 1 audits one context per query")
        .option("--context-size <n>", "context size in tokens")
        .option("--prompt-format <fmt>", "prompt format (as for eddy run)")
        .option("--fast", "audit the opt-in fast mode instead of the default reproducible one")
        .option("--judge-workers <n>", "parallel judge processes")
        .option("--allow-unsandboxed", "let the judge run candidate code without a sandbox where none can be had")
        .option("--db <file>", `database the result is recorded in (default ${defaultDbPath()})`)
        .option("--json", "print the audit as JSON on stdout")
        .addHelpText(
            "after",
            `
Examples:
  $ eddy audit determinism -m models/eddy-tiny-f32.gguf -t copy_block -M 2 --max-tokens 16
  $ eddy audit determinism -m models/eddy-tiny-f32.gguf -t copy_block -M 2 --fast --sequences 2,3
  $ eddy audit determinism --backend server --base-url http://127.0.0.1:8080/v1 -m qwen2.5-coder-7b
  (add --concurrency 4 to compare 4 requests in flight with one; --json prints the audit)

Exit code 3 when any response differs between sessions.`
        );
    // Each backend's own flags, as its descriptor declares them; those saying how many run at once are the counts
    // compared with one (repeatable, or a comma list; default 2 lockstep groups, else 4).
    for (const o of BACKEND_OPTIONS) {
        if (cmd.options.some((x) => x.long === flagOf(o))) continue;
        if (PARALLEL_KEYS.includes(o.key)) cmd.option(o.flags, `${o.description}; here: counts to compare with one (repeatable, or a comma list)`, collect, [] as string[]);
        else cmd.option(o.flags, o.description);
    }
    cmd.action(async (f: DeterminismFlags) => {
        // The same schema as eddy run: one name, one bound for every setting.
        const s = parseStudySettings({
            models: f.model, instances: f.instances, rounds: f.rounds, temperatures: f.temperature ?? "0", seed: f.seed, maxTokens: f.maxTokens,
            threads: f.threads, contextSize: f.contextSize, promptFormat: f.promptFormat, judgeWorkers: f.judgeWorkers,
            ...(f.templates !== undefined ? { templates: f.templates } : {})
        });
        if (f.fast && f.groupSize !== undefined) throw new EddyError("--group-size applies to the reproducible mode; --fast schedules sequences freely (give one or the other)");
        const descriptor = backendDescriptor(f.backend ?? DEFAULT_BACKEND);
        const mode = f.fast ? "fast" : "reproducible";
        const groupSize = descriptor.scheduling(mode) !== "lockstep" ? undefined : parseStudySettings({ groupSize: f.groupSize ?? DEFAULT_GROUP_SIZE }).groupSize!;
        // What runs at once is the backend's to say: lockstep groups, sequences, or requests in flight to a server.
        const parallel = descriptor.parallelSetting(mode, groupSize);
        const own = backendFlagValues(f);
        const lists = Object.fromEntries(PARALLEL_KEYS.map((k) => [k, (own[k] as string[] | undefined) ?? []]));
        const misplaced = PARALLEL_KEYS.find((k) => k !== parallel && lists[k]!.length > 0);
        if (misplaced) {
            const how = groupSize !== undefined ? ` and --group-size ${groupSize}` : mode === "fast" ? " and --fast" : "";
            throw new EddyError(`--${optionFlag(misplaced)} does not apply here: with --backend ${descriptor.name}${how}, ${parallel ? `what runs at once is compared with --${optionFlag(parallel)}` : "nothing runs at once"}`);
        }
        if (parallel === undefined) throw new EddyError(`--backend ${descriptor.name} runs nothing at once: there is no batching to audit`);
        const given = lists[parallel]!;
        // Lockstep groups hold G queries each: fewer of them make as big a batch.
        const counts = (given.length ? given : [groupSize !== undefined && groupSize > 1 ? "2" : "4"]).map((v) => parseStudySettings({ [parallel]: v })[parallel as keyof StudySettings] as number);
        // The backend's other settings, checked by the study schema (the counts are the sessions').
        const backendSettings = parseStudySettings(Object.fromEntries(Object.entries(own).filter(([k]) => !PARALLEL_KEYS.includes(k))));
        if ((s.temperatures ?? []).length !== 1) throw new EddyError("give one --temperature");
        const db = path.resolve(f.db ?? defaultDbPath());
        const stop = stopOnSigint();
        try {
            const result = await auditDeterminism({
                backend: descriptor.name,
                backendSettings,
                model: descriptor.resolveModel(f.model, process.cwd()),
                templates: s.templates ?? defaultTemplates(3),
                instances: s.instances!, rounds: s.rounds!, temperature: s.temperatures![0]!, seed: s.seed!, maxTokens: s.maxTokens!, threads: s.threads!,
                counts, mode, ...(groupSize !== undefined ? { groupSize } : {}),
                ...(s.contextSize !== undefined ? { contextSize: s.contextSize } : {}),
                ...(s.promptFormat !== undefined ? { promptFormat: s.promptFormat } : {}),
                ...(s.judgeWorkers !== undefined ? { judgeWorkers: s.judgeWorkers } : {}),
                ...(f.allowUnsandboxed ? { allowUnsandboxed: true } : {}),
                hooks: { library: templateLibrary(), signal: stop.signal, onLog: logLine },
                onSession: (label) => note(`audit session ${label}`)
            });
            const store = openStore(db);
            try {
                recordAudit(store, result);
            } finally {
                store.close();
            }
            process.stdout.write(f.json ? JSON.stringify(result, null, 2) + "\n" : determinismLines(result).join("\n") + "\n");
            if (!result.identical) process.exitCode = 3;
        } finally {
            stop.dispose();
        }
    });
}
