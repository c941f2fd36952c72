import { buildReport, scoreOptions } from "../report/buildReport.js";
import { studyContext } from "../report/loadStudy.js";
import type { ReportData, ReportRunMeta } from "../report/types.js";
import { plannedKey, scoreNeighbourhoods, unansweredNeighbourhoods, type NeighbourhoodScore } from "../scores/neighbourhood.js";
import type { Store } from "../store/Store.js";
import { runAnswers } from "../store/outcomes.js";
import type { Outcome } from "../vocabulary.js";
import { NotFound } from "./context.js";

/** A run's metadata as the viewer's report data needs it (its study configuration included). */
export type RunMeta = ReportRunMeta & { id: string; config: Record<string, unknown> };

/** A run's report data as the viewer shows it: the same `buildReport` as `eddy report`, over the run's judged answers. */
export interface RunData {
    info: RunMeta;
    data: ReportData;
    scores: NeighbourhoodScore[];
    /** The judged answers scored, without their text (the comparison of two configurations pairs them). */
    outcomes: Outcome[];
    /**
     * The same answers per neighbourhood (configuration × template): each list is the same array for as long as
     * its neighbourhood is unchanged, so what is derived from one (the leaderboard's paired data) is kept by it.
     */
    parts: readonly (readonly Outcome[])[];
}

/** One neighbourhood's judged answers (without text) and scores, with the fingerprint they were read at. */
interface Neighbourhood {
    fp: string;
    outcomes: Outcome[];
    /** Undefined when none of its answers is judged yet. */
    score: NeighbourhoodScore | undefined;
    /** Its verdicts by category, as Store.counts counts them: the run's counts are their sums, not another read of every answer. */
    categories: Record<string, number>;
}

/**
 * Report data per run, rebuilt only when the run changed, so a running study shows its new answers on
 * reload and a finished one is scored once. Nothing committed since the last look (SQLite's
 * data_version, free to read) means nothing to re-read; otherwise each neighbourhood's fingerprint
 * (ViewRepository.neighbourhoodVersions) says which changed, and only those are scored again: the
 * others keep their scores (a neighbourhood's scores depend on its own answers and plan alone), and
 * `buildReport` assembles the rest as `eddy report` does. Bounded: the few runs last looked at.
 */
export class RunDataCache {
    private readonly entries = new Map<string, { version: string; value: RunData; neighbourhoods: Map<string, Neighbourhood> }>();
    private dataVersion = -1;
    private readonly versions = new Map<string, Map<string, string>>();
    /** Neighbourhoods scored by the last rebuild (the rest were kept): for tests and the benchmark. */
    lastRescored = 0;
    constructor(
        private readonly store: Store,
        private readonly keep = 8
    ) {}

    /** Values derived from a run's data (see {@link derived}), kept for every run until it changes: small, unlike the data. */
    private readonly derivedValues = new Map<string, { version: string; value: unknown }>();

    /** A run's id, its neighbourhoods' fingerprints and the version they make (free when nothing was committed since the last look). */
    private look(runId: string): { id: string; fps: Map<string, string>; version: string; status: string } {
        const dv = this.store.view.dataVersion();
        if (dv !== this.dataVersion) {
            this.versions.clear();
            this.dataVersion = dv;
        }
        const run = this.store.getRun(runId);
        if (!run) throw new NotFound(`no run '${runId}'`);
        const fps = this.versions.get(run.id) ?? this.store.view.neighbourhoodVersions(run.id);
        this.versions.set(run.id, fps);
        return { id: run.id, fps, status: run.status, version: `${run.status}${run.updated}|${[...fps].map(([k, v]) => `${k}=${v}`).join("|")}` };
    }

    /** The version of a run's data: it changes whenever an answer or verdict of the run is written, or its status. */
    version(runId: string): string {
        return this.look(runId).version;
    }

    /**
     * A value built from a run's data by `build` (the leaderboard's rows of the run), kept under `key` until the
     * run changes; unlike the run data itself (a few runs), kept for every run, so a page over all runs does
     * not score each again on every look.
     */
    derived<T>(runId: string, key: string, build: (d: RunData) => T): T {
        const { id, version } = this.look(runId);
        const k = `${id}\u0000${key}`;
        const hit = this.derivedValues.get(k);
        if (hit && hit.version === version) return hit.value as T;
        const value = build(this.get(id));
        this.derivedValues.set(k, { version, value });
        return value;
    }

    get(runId: string): RunData {
        const looked = this.look(runId);
        const fps = looked.fps;
        const version = looked.version;
        const run = { id: looked.id };
        const hit = this.entries.get(run.id);
        if (hit && hit.version === version) return hit.value;

        const info = this.meta(run.id);
        const { planned, determinism } = studyContext(this.store, [info]);
        const idOf = new Map(this.store.view.configurations(run.id).map((c) => [c.label, c.id]));
        // Per neighbourhood, in the store's order (configuration id, template): kept when its fingerprint
        // (its answers', and its plan's) is unchanged, else its answers read again and scored again.
        const fpOf = (key: string, answers: string) => {
            const p = planned.get(plannedKey(run.id, key.split("\u0000")[1]!));
            return `${answers}|${p?.instances ?? ""}/${p?.rounds ?? ""}`;
        };
        const staleKeys = [...fps].filter(([key, answers]) => hit?.neighbourhoods.get(key)?.fp !== fpOf(key, answers)).map(([key]) => key);
        // Many changed (the first look, or a study far along since): one read of the whole run, split.
        let bulk: Map<string, Outcome[]> | undefined;
        let bulkCategories: Map<string, Record<string, number>> | undefined;
        if (staleKeys.length > fps.size / 4) {
            bulk = new Map();
            for (const o of this.store.view.scoringOutcomes(run.id)) {
                const key = `${idOf.get(o.config)}\u0000${o.template}`;
                const list = bulk.get(key);
                if (list) list.push(o);
                else bulk.set(key, [o]);
            }
            bulkCategories = this.store.view.categoryCounts(run.id);
        }
        const neighbourhoods = new Map<string, Neighbourhood>();
        const stale: { key: string; fp: string; outcomes: Outcome[]; categories: Record<string, number> }[] = [];
        const staleSet = new Set(staleKeys);
        for (const [key, answers] of fps) {
            if (!staleSet.has(key)) {
                neighbourhoods.set(key, hit!.neighbourhoods.get(key)!);
                continue;
            }
            const [configId, template] = key.split("\u0000") as [string, string];
            const only = { configId: Number(configId), template };
            const outcomes = bulk ? (bulk.get(key) ?? []) : this.store.view.scoringOutcomes(run.id, only);
            const categories = (bulkCategories ?? this.store.view.categoryCounts(run.id, only)).get(key) ?? {};
            stale.push({ key, fp: fpOf(key, answers), outcomes, categories });
            neighbourhoods.set(key, { fp: fpOf(key, answers), outcomes, score: undefined, categories });
        }
        // Scored piecewise, so the planned templates without any answer (no_data) are added once below, over
        // the whole run, and not for whichever neighbourhoods happened to be stale.
        const staleLabels = new Set(stale.flatMap((n) => (n.outcomes[0] ? [`${n.outcomes[0].config}\u0000${n.outcomes[0].template}`] : [])));
        const fresh = new Map(
            scoreNeighbourhoods(stale.flatMap((n) => n.outcomes), scoreOptions({ planned }))
                .map((x) => [`${x.config}\u0000${x.template}`, x] as const)
                .filter(([k]) => staleLabels.has(k))
        );
        for (const n of stale) {
            const first = n.outcomes[0];
            neighbourhoods.set(n.key, { fp: n.fp, outcomes: n.outcomes, score: first && fresh.get(`${first.config}\u0000${first.template}`), categories: n.categories });
        }
        this.lastRescored = fresh.size;
        // The run's answers as every command counts them (src/vocabulary.ts), from the neighbourhoods' counts:
        // its status and "judged" read as in runs list.
        const categories: Record<string, number> = {};
        for (const n of neighbourhoods.values()) for (const [c, k] of Object.entries(n.categories)) categories[c] = (categories[c] ?? 0) + k;
        let instances = 0; // planned holds this run's templates alone
        for (const p of planned.values()) instances += p.instances;
        info.answers = runAnswers({ configurations: info.configurations?.length ?? 0, instances, categories }, info.config, info.status);
        const outcomes = [...neighbourhoods.values()].flatMap((n) => n.outcomes);
        // The answers per neighbourhood (configuration label and template), each the same array while it is unchanged.
        const parts = new Map<string, readonly Outcome[]>();
        for (const n of neighbourhoods.values()) if (n.outcomes[0]) parts.set(`${n.outcomes[0].config}\u0000${n.outcomes[0].template}`, n.outcomes);
        // In scoreNeighbourhoods' own order (configuration label, then template), as one call over every answer gives.
        const all = [...neighbourhoods.values()]
            .flatMap((n) => (n.score ? [n.score] : []))
            .concat(unansweredNeighbourhoods(parts, planned))
            .sort((a, b) => a.config.localeCompare(b.config) || a.template.localeCompare(b.template));
        const { data, scores } = buildReport(outcomes, [info], { planned, determinism, title: `run ${info.id}`, scores: all, parts });
        const value = { info, data, scores, outcomes, parts: [...parts.values()] };
        this.entries.delete(run.id);
        this.entries.set(run.id, { version, value, neighbourhoods });
        while (this.entries.size > this.keep) this.entries.delete(this.entries.keys().next().value!);
        return value;
    }

    private meta(runId: string): RunMeta {
        const run = this.store.getRun(runId);
        if (!run) throw new NotFound(`no run '${runId}'`);
        let config: Record<string, unknown> = {};
        try {
            config = JSON.parse(run.config_json) as Record<string, unknown>;
        } catch {
            // an unreadable configuration reads as none: the run is still shown
        }
        return {
            id: run.id,
            created: run.created,
            status: run.status,
            backend: run.backend,
            seed: run.seed,
            eddyVersion: run.eddy_version,
            isolationLevel: run.isolation_level,
            isolation: parsedOrNull(run.isolation_json),
            config,
            configurations: this.store.view.configurations(run.id).map((c) => ({ label: c.label, metadata: c.metadata, modelSha256: c.modelSha256 }))
        };
    }
}

/** A stored JSON column's value, or null when it is empty or unreadable (the run is still shown). */
function parsedOrNull(text: string | null): unknown {
    try {
        return text ? (JSON.parse(text) as unknown) : null;
    } catch {
        return null;
    }
}
