import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eddyVersion } from "../util/paths.js";
import { EddyError } from "../util/errors.js";
import { openStore, type Store } from "../store/Store.js";
import { requireRun } from "../store/outcomes.js";
import { DEFAULT_GROUP_SIZE, type StudyConfig } from "../run/config.js";
import { backendDescriptor, DEFAULT_BACKEND } from "../inference/backends.js";
import { runStudy, type StudyHooks, type StudyResult } from "../run/runStudy.js";
import type { DecodingMode } from "../vocabulary.js";
import { renderPairs } from "../report/terminalTable.js";
import { wrapLines } from "../util/textWidth.js";

/** One response of an audit session, by its place in the study. */
export interface AuditRow {
    key: string;
    template: string;
    instance: number;
    round: number;
    response: string;
    category: string | null;
}

/** Where two sessions first disagree. */
export interface Divergence {
    /** The query (`template|instance|round`), first in study order. */
    query: string;
    /** Characters both responses share before they differ. */
    charOffset: number;
    /** The two responses' text from a little before that point. */
    a: string;
    b: string;
}

/** One session compared with the baseline session. */
export interface AuditComparison {
    /** What differs from the baseline: "repeat" (same settings again), "sequences=N", "groups=N" or "resumed". */
    variant: string;
    /** Parallel sequences (one context each, or one shared context in fast mode); lockstep: groups decoded at once. */
    sequences: number;
    /** "resumed": responses kept when the session was interrupted, kept responses generated again with their group, and those that differed. */
    resume?: { storedBefore: number; regenerated: number; mismatched: number };
    responses: number;
    differingResponses: number;
    differingVerdicts: number;
    responseShare: number;
    verdictShare: number;
    firstDivergence: Divergence | null;
}

/** The result of `eddy audit determinism`, as stored on the model. */
export interface DeterminismAudit {
    model: string;
    modelSha256: string;
    mode: DecodingMode;
    eddyVersion: string;
    /** sequences: the parallel count of each session (lockstep: groups decoded at once); groupSize: lockstep's G (1: one context per query). */
    settings: { templates: string; instances: number; rounds: number; temperature: number; seed: number; maxTokens: number; threads: number; sequences: number[]; groupSize?: number };
    comparisons: AuditComparison[];
    /**
     * Greedy only: queries whose rounds are not all identical within the baseline session, of those with
     * several rounds. In lockstep mode the rounds of a prompt sit at different places in the batch (on a
     * GPU their arithmetic can differ), so there it is reported, not required.
     */
    rounds: { prompts: number; differing: number } | null;
    /** True when every comparison (and, outside lockstep, the rounds) agreed byte for byte. */
    identical: boolean;
}

/** What to audit. */
export interface DeterminismOptions {
    /** The backend that answers (default llama) and the settings it owns (a server's base URL, the GPU, …), by key. */
    backend?: string;
    backendSettings?: Record<string, unknown>;
    model: string;
    templates: string;
    instances: number;
    rounds: number;
    temperature: number;
    seed: number;
    maxTokens: number;
    threads: number;
    /** Counts of what runs at once to try besides 1 (default [4]), in the backend's parallel setting: sequences, lockstep groups decoded at once, requests in flight. */
    counts: number[];
    mode: DecodingMode;
    /** Reproducible mode: members per lockstep group (default 8); 1 audits one context per query. */
    groupSize?: number;
    contextSize?: number;
    promptFormat?: string;
    judgeWorkers?: number;
    allowUnsandboxed?: boolean;
    hooks?: Pick<StudyHooks, "onLog" | "signal" | "library">;
    /** Called before each session. */
    onSession?: (label: string) => void;
}

const keyOf = (r: { template_id: string; instance_idx: number; round: number }): string => `${r.template_id}|${r.instance_idx}|${r.round}`;

/** Every response of a run with its final verdict, in study order. */
export function auditRows(store: Store, runId: string): AuditRow[] {
    requireRun(store, runId);
    const rows = store.audits.responses(runId);
    return rows.map((r) => ({ key: keyOf(r), template: r.template_id, instance: r.instance_idx, round: r.round, response: r.response, category: r.category }));
}

/** Length of the common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    return i;
}

/** Compare a session with the baseline: shares of differing responses and verdicts, and the first divergence. */
export function compareSessions(variant: string, sequences: number, base: AuditRow[], other: AuditRow[]): AuditComparison {
    const byKey = new Map(other.map((r) => [r.key, r]));
    let differingResponses = 0;
    let differingVerdicts = 0;
    let first: Divergence | null = null;
    for (const a of base) {
        const b = byKey.get(a.key);
        if (!b) throw new EddyError(`audit session '${variant}' has no response for ${a.key}`);
        if (a.response !== b.response) {
            differingResponses++;
            if (!first) {
                const at = commonPrefix(a.response, b.response);
                first = { query: a.key, charOffset: at, a: a.response.slice(Math.max(0, at - 20), at + 40), b: b.response.slice(Math.max(0, at - 20), at + 40) };
            }
        }
        if (a.category !== b.category) differingVerdicts++;
    }
    const n = base.length;
    return { variant, sequences, responses: n, differingResponses, differingVerdicts, responseShare: n ? differingResponses / n : 0, verdictShare: n ? differingVerdicts / n : 0, firstDivergence: first };
}

/** Greedy rounds of one prompt must agree: how many prompts (with more than one round) have differing rounds. */
export function roundAgreement(rows: AuditRow[]): { prompts: number; differing: number } {
    const groups = new Map<string, Set<string>>();
    const sizes = new Map<string, number>();
    for (const r of rows) {
        const k = `${r.template}|${r.instance}`;
        if (!groups.has(k)) groups.set(k, new Set());
        groups.get(k)!.add(r.response);
        sizes.set(k, (sizes.get(k) ?? 0) + 1);
    }
    const multi = [...groups.keys()].filter((k) => sizes.get(k)! > 1);
    return { prompts: multi.length, differing: multi.filter((k) => groups.get(k)!.size > 1).length };
}

/**
 * `eddy audit determinism`: the same queries answered by the same model in several sessions — a
 * baseline with one sequence (lockstep: one group at a time), the same again, and with more in
 * parallel (other batching) — each a fresh run with the response cache off, in a scratch database;
 * in lockstep mode also a session interrupted part-way and resumed, whose interrupted groups are
 * generated again whole. Compares every session with the baseline (and, when greedy, the rounds of
 * each prompt with each other).
 */
export async function auditDeterminism(o: DeterminismOptions): Promise<DeterminismAudit> {
    const scratch = mkdtempSync(path.join(os.tmpdir(), "eddy-audit-"));
    const db = path.join(scratch, "audit.db");
    const descriptor = backendDescriptor(o.backend ?? DEFAULT_BACKEND);
    // Lockstep groups only where the backend decodes in them; a server is audited alone (one request at a time) and in company.
    const groupSize = descriptor.scheduling(o.mode) === "lockstep" ? (o.groupSize ?? DEFAULT_GROUP_SIZE) : undefined;
    const lockstep = groupSize !== undefined && groupSize > 1;
    const parallel = descriptor.parallelSetting(o.mode, groupSize);
    if (parallel === undefined) throw new EddyError(`--backend ${descriptor.name} runs nothing at once: there is no batching to audit`);
    try {
        const base: StudyConfig = {
            ...o.backendSettings,
            models: [descriptor.resolveModel(o.model, process.cwd())], templates: o.templates, instances: o.instances, rounds: o.rounds, temperatures: [o.temperature], wrappers: ["default"],
            seed: o.seed, maxTokens: o.maxTokens, backend: descriptor.name as StudyConfig["backend"], mode: o.mode, threads: o.threads, noCache: true, fresh: true, db,
            ...(groupSize !== undefined ? { groupSize } : {}),
            ...(o.contextSize !== undefined ? { contextSize: o.contextSize } : {}),
            ...(o.promptFormat !== undefined ? { promptFormat: o.promptFormat } : {}),
            ...(o.judgeWorkers !== undefined ? { judgeWorkers: o.judgeWorkers } : {}),
            ...(o.allowUnsandboxed !== undefined ? { allowUnsandboxed: o.allowUnsandboxed } : {})
        };
        const more = o.counts.filter((n) => n !== 1);
        const sessions: { variant: string; count: number; resume?: boolean }[] = [
            { variant: "baseline", count: 1 },
            { variant: "repeat", count: 1 },
            ...more.map((n) => ({ variant: `${parallel}=${n}`, count: n })),
            ...(lockstep ? [{ variant: "resumed", count: Math.max(1, ...more), resume: true }] : [])
        ];
        const rows: AuditRow[][] = [];
        const resumes: (AuditComparison["resume"] | undefined)[] = [];
        let sha = "";
        let reported: DecodingMode | undefined;
        for (const s of sessions) {
            o.onSession?.(s.variant);
            const config = { ...base, [parallel]: s.count };
            const r = s.resume ? await interruptedAndResumed(config, o.hooks ?? {}) : { result: await runStudy(config, o.hooks ?? {}), resume: undefined };
            if (r.result.status !== "complete") throw new EddyError(`audit session '${s.variant}' did not complete (${r.result.status})`, o.hooks?.signal?.aborted ? 130 : 1);
            resumes.push(r.resume);
            const store = openStore(db, { readonly: true });
            try {
                rows.push(auditRows(store, r.result.runId));
                const conf = store.configurations(r.result.runId)[0];
                sha ||= conf?.model_sha256 ?? "";
                // A server's answers are as reproducible as its setup, which it reports: the audit is of that mode.
                reported ??= conf?.metadata_json ? (JSON.parse(conf.metadata_json) as { mode?: DecodingMode }).mode : undefined;
            } finally {
                store.close();
            }
        }
        const comparisons = sessions.slice(1).map((s, i) => {
            const c = compareSessions(s.variant, s.count, rows[0]!, rows[i + 1]!);
            const resume = resumes[i + 1];
            return resume ? { ...c, resume } : c;
        });
        const rounds = o.temperature === 0 && o.rounds > 1 ? roundAgreement(rows[0]!) : null;
        return {
            model: descriptor.models === "file" ? path.basename(o.model) : o.model,
            modelSha256: sha,
            mode: descriptor.scheduling(o.mode) === "remote" ? (reported ?? o.mode) : o.mode,
            eddyVersion: eddyVersion(),
            settings: {
                templates: o.templates, instances: o.instances, rounds: o.rounds, temperature: o.temperature, seed: o.seed, maxTokens: o.maxTokens, threads: o.threads,
                sequences: sessions.map((x) => x.count), ...(base.groupSize !== undefined ? { groupSize: base.groupSize } : {})
            },
            comparisons,
            rounds,
            identical:
                comparisons.every((c) => c.differingResponses === 0 && (c.resume?.mismatched ?? 0) === 0) && (lockstep || rounds === null || rounds.differing === 0)
        };
    } finally {
        rmSync(scratch, { recursive: true, force: true });
    }
}

/**
 * A session interrupted part-way, then resumed: run to the end, then every other response (in study
 * order) is removed, as a stop in the middle of its groups would leave it, and the run is resumed
 * with one group at a time. Each group that lost a member is generated again whole: the removed
 * responses are stored again and the kept ones are compared with what comes out.
 */
async function interruptedAndResumed(config: StudyConfig, hooks: Pick<StudyHooks, "onLog" | "signal" | "library">): Promise<{ result: StudyResult; resume: NonNullable<AuditComparison["resume"]> }> {
    const first = await runStudy(config, { ...hooks, judge: false });
    const store = openStore(config.db!);
    let storedBefore: number;
    try {
        const ids = store.audits.generationIds(first.runId);
        const removed = ids.filter((_, i) => i % 2 === 1);
        store.audits.removeGenerations(removed);
        storedBefore = ids.length - removed.length;
    } finally {
        store.close();
    }
    const result = await runStudy({ ...config, resume: first.runId, groups: 1 }, hooks);
    return { result, resume: { storedBefore, regenerated: result.stats.generation.regenerated, mismatched: result.stats.generation.mismatched } };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The audit as text lines (what the command prints). */
export function determinismLines(a: DeterminismAudit & { created?: string }): string[] {
    const g = a.settings.groupSize;
    // Within 100 columns, as every message: a long model file name wraps the verdict onto a line of its own.
    const lines = wrapLines(
        `determinism audit of ${a.model} (${a.mode} mode${g === undefined ? "" : g > 1 ? `, lockstep groups of ${g}` : ", one context per query"}, eddy ${a.eddyVersion}${a.created ? `, ${a.created.slice(0, 10)}` : ""}): ${a.identical ? "identical" : "NOT identical"}`
    ).split("\n");
    const pairs = a.comparisons.map((c): [string, string] => {
        const where = c.firstDivergence ? `; first divergence ${c.firstDivergence.query} at character ${c.firstDivergence.charOffset}` : "";
        const resumed = c.resume ? `; interrupted with ${c.resume.storedBefore} kept, ${c.resume.regenerated} of them generated again with their groups, ${c.resume.mismatched} differing` : "";
        return [c.variant, `responses differ ${c.differingResponses}/${c.responses} (${pct(c.responseShare)}), verdicts differ ${c.differingVerdicts}/${c.responses} (${pct(c.verdictShare)})${where}${resumed}`];
    });
    lines.push(...renderPairs(pairs, { indent: "  " }));
    if (a.rounds) lines.push(`  greedy rounds: ${a.rounds.differing} of ${a.rounds.prompts} prompts have rounds that differ${(a.settings.groupSize ?? 1) > 1 ? " (lockstep: reported, not required)" : ""}`);
    return lines;
}

/** Store an audit on its model. */
export function recordAudit(store: Store, a: DeterminismAudit): void {
    store.audits.record({
        modelSha256: a.modelSha256, model: a.model, mode: a.mode, eddyVersion: a.eddyVersion,
        responses: a.comparisons[0]?.responses ?? 0,
        differingResponses: Math.max(0, ...a.comparisons.map((c) => c.differingResponses)),
        differingVerdicts: Math.max(0, ...a.comparisons.map((c) => c.differingVerdicts)),
        identical: a.identical,
        result: a
    });
}
