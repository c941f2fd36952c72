import { z } from "zod";
import { HARNESS_CATEGORIES, MODEL_CATEGORIES } from "../../vocabulary.js";
import type { IsolationReport } from "../types.js";
import { judgeEnvironment } from "../environment.js";
import { WorkerFailure, type WorkerReply } from "./PythonWorker.js";

// The shape of each reply the Python worker sends (eddy_judge/worker.py handle()). A reply that
// does not match is a harness failure said in one line, never a verdict read from half a reply.

const judgeReply = z.object({
    category: z.enum([...MODEL_CATEGORIES, ...HARNESS_CATEGORIES]),
    detail: z.string(),
    ms: z.number(),
    // Which limit decided a resource_exhaustion (verdicts.py Outcome.limit): a field, never read from the detail.
    limit: z.enum(["cpu", "blocked", "wall"]).nullable(),
    borderline: z.boolean(),
    cpuMs: z.number().nullable(),
    budgetMs: z.number(),
    // A fuzzing_failure's smallest differing input (eddy_judge/shrink.py); absent when nothing was shrunk.
    shrunk: z
        .object({ call: z.string(), expected: z.string(), actual: z.string(), from: z.string(), tried: z.number().int().min(0), steps: z.number().int().min(0) })
        .strict()
        .nullable()
        .optional()
});
export type JudgeReply = z.infer<typeof judgeReply>;

// A judge request with `profile: true` also gets what each phase of the verdict cost (eddy_judge/profile.py).
const profileReply = judgeReply.extend({
    phases: z.record(z.string(), z.object({ ms: z.number(), cpu_ms: z.number().optional(), minflt: z.number().optional() }))
});
export type VerdictProfile = z.infer<typeof profileReply>;

// Typed against IsolationReport (types.ts, where each field is described): a field added there and not here fails to compile.
const isolationReport: z.ZodType<IsolationReport> = z
    .object({
        level: z.string(),
        sandboxed: z.boolean(),
        mode: z.enum(["bwrap", "none"]),
        mechanism: z.string(),
        bubblewrap: z.string().nullable(),
        seccomp: z.enum(["allow-list", "deny-list", "none"]),
        cgroup: z.boolean(),
        cpuFactor: z.number(),
        cpuFactorSource: z.enum(["env", "cache", "measured", "measured-busy"]),
        network: z.enum(["namespace", "seccomp", "none"]),
        pidNamespace: z.boolean(),
        unprivilegedUser: z.boolean(),
        rlimits: z.array(z.string()),
        notes: z.array(z.string())
    })
    .passthrough();

const helloReply = z.object({
    isolation: isolationReport,
    python: z.string(),
    runtimes: z.record(z.string(), z.string().nullable()),
    environment: judgeEnvironment,
    // The worker's own limits: the one place they are set (verdicts.py), read here by the pool.
    limits: z.object({ maxCodeBytes: z.number().int().positive() })
});
export type HelloReply = z.infer<typeof helloReply>;

const sourceReply = z.object({ source: z.string() });
const mutantsReply = z.object({ mutants: z.array(z.string()) });

/** Thrown for a reply that does not have its operation's shape. */
export class MalformedReply extends WorkerFailure {}

function parse<T>(schema: z.ZodType<T>, op: string, reply: WorkerReply): T {
    const r = schema.safeParse(reply);
    if (r.success) return r.data;
    const issue = r.error.issues[0]!;
    const where = issue.path.length ? issue.path.join(".") : "the reply";
    throw new MalformedReply(`the judge worker sent a malformed reply to ${op}: ${where}: ${issue.message}`);
}

export const parseJudgeReply = (r: WorkerReply): JudgeReply => parse(judgeReply, "judge", r);
export const parseProfileReply = (r: WorkerReply): VerdictProfile => parse(profileReply, "judge (profile)", r);
export const parseHelloReply = (r: WorkerReply): HelloReply => parse(helloReply, "hello", r);
export const parseSourceReply = (r: WorkerReply): string => parse(sourceReply, "source", r).source;
export const parseMutantsReply = (r: WorkerReply): string[] => parse(mutantsReply, "mutants", r).mutants;
