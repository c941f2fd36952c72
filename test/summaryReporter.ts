import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints the plain closing line `tests: N passed, N failed, N skipped` after vitest's own summary,
 * so any CI that reads closing lines (not only vitest-aware ones) sees the counts.
 */
export default class SummaryReporter implements Reporter {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
        let passed = 0;
        let failed = 0;
        let skipped = 0;
        for (const mod of testModules)
            for (const test of mod.children.allTests()) {
                const state = test.result().state;
                if (state === "passed") passed++;
                else if (state === "failed") failed++;
                else skipped++;
            }
        process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    }
}
