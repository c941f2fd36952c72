import { randomBytes } from "node:crypto";
import { EddyError } from "../../util/errors.js";
import { eddyVersion } from "../../util/paths.js";
import { backendDescriptor, DEFAULT_BACKEND, type BackendParts } from "../../inference/backends.js";
import type { TemplateLibrary } from "../../templates/library.js";
import type { Store } from "../../store/Store.js";
import { requireRun } from "../../store/outcomes.js";
import type { DecodingMode } from "../../vocabulary.js";
import type { RunRow } from "../../store/types.js";
import { identityOf, normalizeStudyConfig, OPERATIONAL_KEYS, studyHash, type StudyConfig } from "../config.js";
import { planStudy, type StudyPlan } from "../plan.js";

/** A run ready to work on: created or found, its plan, its templates and instances recorded. */
export interface OpenedRun {
    run: RunRow;
    created: boolean;
    plan: StudyPlan;
    /** What the backend read before the run was stored (a replay file, read and validated). */
    parts: Pick<BackendParts, "prepared">;
    /** sha256 of a file standing for the model (a replay file's); null when none. */
    sourceSha256: string | null;
}

/** A new run id: date plus random hex, readable and sortable. */
function newRunId(): string {
    const d = new Date().toISOString().slice(0, 10).replace(/-/g, "");
    return `${d}-${randomBytes(3).toString("hex")}`;
}

/**
 * A stored run's configuration, with this session's operational settings on top. Runs stored before
 * decoding modes existed were computed in the batched mode unless `reproducible` was set: they keep it;
 * reproducible runs stored before lockstep groups keep one context per query.
 */
export function resumeConfig(store: Store, runId: string, overrides: Partial<StudyConfig> = {}): StudyConfig {
    const run = requireRun(store, runId);
    const stored = JSON.parse(run.config_json) as Record<string, unknown>;
    if (stored.mode === undefined) {
        stored.mode = stored.reproducible === true ? "reproducible" : "fast";
        delete stored.reproducible;
    }
    // Before lockstep groups, the reproducible mode gave every query a context of its own: G = 1.
    if (backendDescriptor(String(stored.backend ?? DEFAULT_BACKEND)).scheduling(stored.mode as DecodingMode) === "lockstep" && stored.groupSize === undefined) stored.groupSize = 1;
    const ops: Record<string, unknown> = {};
    for (const k of OPERATIONAL_KEYS) if (overrides[k] !== undefined) ops[k] = overrides[k];
    return normalizeStudyConfig({ ...stored, ...ops, resume: run.id, db: store.path });
}

/**
 * The configuration a session works on: a resumed run's stored one (this session's operational settings on
 * top), else the given one. Local runs and queued runs (`--queue`) both start here.
 */
export function sessionConfig(store: Store, input: StudyConfig): StudyConfig {
    return input.resume ? resumeConfig(store, input.resume, input) : input;
}

/** The backend's sources are checked before a run is created (model files exist, remote ones allowed, a URL well formed), so a typo leaves no empty run behind. */
export function checkModels(config: StudyConfig): void {
    backendDescriptor(config.backend).checkSources(config);
}

/**
 * A model file replaced at the same path would mix two models' answers in one run (or loop run):
 * refused when its sha256 differs from one stored with the run. `run` names it ("run <id>", "loop run <id>").
 */
export function checkModelUnchanged(stored: readonly (string | null)[], sha: string | null, model: string, run: string): void {
    if (sha && stored.some((s) => s && s !== sha)) throw new EddyError(`model file ${model} changed since ${run} began (sha256 differs); start a new run with --fresh`);
}

/**
 * Create the run (or find the one with the same configuration, or take the one being resumed),
 * plan it, refuse to mix two versions of a template or a replay file in one run, and record the
 * templates and instances it asks.
 */
export function openRun(store: Store, config: StudyConfig, library: TemplateLibrary, onRun: (run: RunRow, created: boolean) => void = () => {}): OpenedRun {
    checkModels(config);
    // What stands in for the model (a replay file) is read and validated before anything is stored.
    const prepared = backendDescriptor(config.backend).readSources(config);
    const existing = config.resume ? requireRun(store, config.resume) : undefined;
    const plan = planStudy(config, library, existing ? (t) => store.instances(existing.id, t) : undefined);
    const hash = studyHash(config, plan.templates.map((t) => t.id));
    const { run, created } = existing
        ? { run: existing, created: false }
        : store.createOrFindRun(
              { id: newRunId(), configHash: hash, config: identityOf(config), eddyVersion: eddyVersion(), backend: config.backend, seed: config.seed },
              !config.fresh
          );
    onRun(run, created);

    // A template edited since the run began would mix two oracles in one run.
    const recorded = new Map(store.runTemplates(run.id).map((t) => [t.template_id, t.oracle_hash]));
    for (const t of plan.templates) {
        const h = recorded.get(t.id);
        if (h && h !== t.oracleHash) throw new EddyError(`template ${t.id} changed since run ${run.id} began (oracle hash differs); start a new run with --fresh`);
    }
    // Like a template, an edited replay file would mix two sets of answers in one run.
    const identity = prepared.identity;
    if (identity)
        for (const c of store.configurations(run.id))
            if (c.model_sha256 && c.model_sha256 !== identity.sha256)
                throw new EddyError(`${identity.what} changed since run ${run.id} began (sha256 differs); start a new run with --fresh`);
    store.recordTemplates(run.id, plan.templates.map((t) => ({ id: t.id, oracleHash: t.oracleHash, group: t.group, subgroups: t.subgroups, function: t.function })));
    for (const t of plan.templates) store.insertInstances(run.id, plan.instances.get(t.id)!);
    store.setRunStatus(run.id, "running");
    return { run, created, plan, parts: prepared.parts, sourceSha256: identity?.sha256 ?? null };
}
