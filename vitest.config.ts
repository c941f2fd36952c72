import { defineConfig } from "vitest/config";

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
    "test/lanes.test.ts",
    "test/view/units.test.ts",
    "test/cli/messages.test.ts"
];

export default defineConfig({
    test: {
        reporters: ["default", "./test/summaryReporter.ts"],
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
                    // Judge and inference tests spawn real processes; on 2-core machines they need room.
                    testTimeout: 120_000,
                    hookTimeout: 120_000,
                    pool: "forks",
                    fileParallelism: true,
                    maxWorkers: 2,
                    sequence: { groupOrder: 1 },
                    globalSetup: ["test/globalSetup.ts"]
                }
            }
        ]
    }
});
