import { buildReport } from "../report/buildReport.js";
import { studyContext } from "../report/loadStudy.js";
import type { ReportData } from "../report/types.js";
import type { NeighbourhoodScore } from "../scores/neighbourhood.js";
import { runInfo, type RunInfo } from "../store/outcomes.js";
import type { Store } from "../store/Store.js";

/** A run's report data as the viewer shows it: the same `buildReport` as `eddy report`, over the run's judged answers. */
export interface RunData {
    info: RunInfo;
    data: ReportData;
    scores: NeighbourhoodScore[];
}

/**
 * Report data per run, rebuilt only when the run changed (a new answer, verdict or status: see
 * ViewRepository.runVersion), so a running study shows its new answers on reload and a finished one
 * is scored once. Bounded: the few runs last looked at.
 */
export class RunDataCache {
    private readonly entries = new Map<string, { version: string; value: RunData }>();
    constructor(
        private readonly store: Store,
        private readonly keep = 8
    ) {}

    get(runId: string): RunData {
        const version = this.store.view.runVersion(runId);
        const hit = this.entries.get(runId);
        if (hit && hit.version === version) return hit.value;
        const info = runInfo(this.store, runId);
        const outcomes = this.store.view.scoringOutcomes(info.id);
        const { planned, determinism } = studyContext(this.store, [info]);
        const { data, scores } = buildReport(outcomes, [info], { planned, determinism, title: `run ${info.id}` });
        const value = { info, data, scores };
        this.entries.delete(runId);
        this.entries.set(runId, { version, value });
        while (this.entries.size > this.keep) this.entries.delete(this.entries.keys().next().value!);
        return value;
    }
}
