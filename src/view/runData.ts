import { buildReport } from "../report/buildReport.js";
import { studyContext } from "../report/loadStudy.js";
import type { ReportData, ReportRunMeta } from "../report/types.js";
import type { NeighbourhoodScore } from "../scores/neighbourhood.js";
import type { Store } from "../store/Store.js";
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
}

/**
 * Report data per run, rebuilt only when the run changed, so a running study shows its new answers on
 * reload and a finished one is scored once. Nothing committed since the last look (SQLite's
 * data_version, free to read) means nothing to re-read; otherwise the run's own fingerprint
 * (ViewRepository.runVersion) says whether this run changed. Bounded: the few runs last looked at.
 */
export class RunDataCache {
    private readonly entries = new Map<string, { version: string; value: RunData }>();
    private dataVersion = -1;
    private readonly versions = new Map<string, string>();
    constructor(
        private readonly store: Store,
        private readonly keep = 8
    ) {}

    get(runId: string): RunData {
        const dv = this.store.view.dataVersion();
        if (dv !== this.dataVersion) {
            this.versions.clear();
            this.dataVersion = dv;
        }
        const version = this.versions.get(runId) ?? this.store.view.runVersion(runId);
        this.versions.set(runId, version);
        const hit = this.entries.get(runId);
        if (hit && hit.version === version) return hit.value;
        const info = this.meta(runId);
        const outcomes = this.store.view.scoringOutcomes(info.id);
        const { planned, determinism } = studyContext(this.store, [info]);
        const { data, scores } = buildReport(outcomes, [info], { planned, determinism, title: `run ${info.id}` });
        const value = { info, data, scores, outcomes };
        this.entries.delete(runId);
        this.entries.set(runId, { version, value });
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
            config,
            configurations: this.store.view.configurations(run.id).map((c) => ({ label: c.label, metadata: c.metadata, modelSha256: c.modelSha256 }))
        };
    }
}
