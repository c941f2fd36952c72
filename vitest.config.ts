import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Two lanes, as node-llama-cpp splits standalone and model-dependent tests. `unit`: scores, stats,
 * extraction, config, template parsing and rendering: in-process, no build, no child processes, in
 * seconds. `integration`: everything that builds dist/, spawns the CLI, judges in Python, loads
 * models or talks to Redis and Chromium. `npm test` runs both; `npx vitest run --project unit` one.
 */
export const UNIT_TESTS = [
    "test/scores/**/*.test.ts",
    "test/import/problems.test.ts",
    "test/stats/**/*.test.ts",
    "test/extract/**/*.test.ts",
    "test/prompts/**/*.test.ts",
    "test/loop/asl.test.ts",
    "test/mutate/sensitivity.test.ts",
    "test/judge/safeText.test.ts",
    "test/judge/replies.test.ts",
    "test/judge/environment.test.ts",
    "test/report/rules.test.ts",
    "test/report/report.test.ts",
    "test/report/agreementCause.test.ts",
    "test/quant/divergence.test.ts",
    "test/quant/flips.test.ts",
    "test/quant/report.test.ts",
    "test/inference/promptFormat.test.ts",
    "test/inference/seeds.test.ts",
    "test/templates/loadTemplates.test.ts",
    "test/templates/instances.test.ts",
    "test/store/wall.test.ts",
    "test/report/shell.test.ts",
    "test/inference/backends.test.ts",
    "test/inference/nodeSettings.test.ts",
    "test/structure.test.ts",
    "test/languages/registry.test.ts",
    "test/lanes.test.ts",
    "test/view/units.test.ts",
    "test/cli/messages.test.ts",
    "test/export/formats.test.ts",
    "test/inference/decoding.test.ts",
    "test/import/importers.test.ts",
    "test/docs/pages.test.ts"
];

/**
 * The slowest integration files, slowest first (seconds each in one whole run on 2 cores: 128, 82,
 * 72, 70, 66, 54, 47, 43, 34, 34, 31, 29; the examples, once one file of 128 s, are now five that
 * run side by side, the help texts' two the longest). vitest orders files by their last durations,
 * which a fresh clone (CI's) does not have: it falls back to file size, and the examples files are
 * a few lines each, so the longest file started last and the lane waited on it (616 s against 549
 * in a checkout that had run before). These go first, in this order, whatever the cache says.
 */
export const SLOW_FIRST = [
    "test/docs/helpStudiesExamples.test.ts",
    "test/docs/helpExamples.test.ts",
    "test/docs/modelPagesExamples.test.ts",
    "test/docs/pagesExamples.test.ts",
    "test/docs/readmeExamples.test.ts",
    "test/inference/server.test.ts",
    "test/run/reproducible.test.ts",
    "test/queue/faults.test.ts",
    "test/docs/hints.test.ts",
    "test/queue/lapses.test.ts",
    "test/import/evalplus.test.ts",
    "test/run/cli.test.ts",
    "test/run/study.test.ts",
    "test/judge/languages.test.ts",
    "test/queue/queue.test.ts",
    "test/kit/install.test.ts"
];

/** vitest's own order (projects, then last durations or sizes), with SLOW_FIRST moved to the front of their project. */
class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
        const base = await super.sort(files);
        const at = new Map(base.map((f, i) => [f, i]));
        const projectAt = new Map<string, number>();
        base.forEach((f, i) => projectAt.set(f.project.name, Math.min(projectAt.get(f.project.name) ?? i, i)));
        const rank = (f: TestSpecification): number => {
            const i = SLOW_FIRST.indexOf(path.relative(this.ctx.config.root, f.moduleId).split(path.sep).join("/"));
            return i < 0 ? SLOW_FIRST.length : i;
        };
        return [...base].sort((a, b) => projectAt.get(a.project.name)! - projectAt.get(b.project.name)! || rank(a) - rank(b) || at.get(a)! - at.get(b)!);
    }
}

export default defineConfig({
    test: {
        reporters: ["default", "./test/summaryReporter.ts"],
        sequence: { sequencer: SlowFirstSequencer },
        projects: [
            {
                test: {
                    name: "unit",
                    include: UNIT_TESTS,
                    pool: "threads",
                    testTimeout: 10_000,
                    // The unit lane first (seconds), then the integration lane with its own worker count.
                    sequence: { groupOrder: 0 }
                }
            },
            {
                test: {
                    name: "integration",
                    include: ["test/**/*.test.ts"],
                    exclude: UNIT_TESTS,
                    // Judge and inference tests spawn real processes. The suite is CPU-bound on 2 cores; a third
                    // worker fills the moments one waits on a process, Redis or a server (825 s against 896 s).
                    testTimeout: 120_000,
                    hookTimeout: 120_000,
                    pool: "forks",
                    fileParallelism: true,
                    maxWorkers: 3,
                    sequence: { groupOrder: 1 },
                    globalSetup: ["test/globalSetup.ts"]
                }
            }
        ]
    }
});
