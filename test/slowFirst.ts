import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The integration lane's longest files, longest first (per-file times of the CI rehearsals, about
 * 55 to 100 s each on 2 cores). On a fresh checkout vitest has no timings of its own and starts
 * the larger files first; `test/docs/examples.test.ts` is a few lines (its suite lives in
 * examples.ts), so it started last and the lane waited about a minute and a half on it alone.
 */
export const SLOW_FIRST = [
    "test/docs/examples.test.ts",
    "test/judge/languages.test.ts",
    "test/inference/server.test.ts",
    "test/docs/hints.test.ts",
    "test/queue/faults.test.ts",
    "test/run/reproducible.test.ts",
    "test/queue/lapses.test.ts",
    "test/import/evalplus.test.ts"
];

/** vitest's order (lanes by groupOrder, then its own), with SLOW_FIRST at the head of its lane. */
export default class SlowFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
        const sorted = await super.sort(files);
        const lane = new Map<string, number>();
        sorted.forEach((f, k) => {
            if (!lane.has(f.project.name)) lane.set(f.project.name, k);
        });
        const rank = (f: TestSpecification): number => {
            const i = SLOW_FIRST.findIndex((p) => f.moduleId.endsWith(p));
            return i < 0 ? SLOW_FIRST.length : i;
        };
        return sorted
            .map((f, k) => ({ f, k, lane: lane.get(f.project.name)!, rank: rank(f) }))
            .sort((a, b) => a.lane - b.lane || a.rank - b.rank || a.k - b.k)
            .map((x) => x.f);
    }
}
