import { defineConfig } from "vitest/config";

export default defineConfig({
    test: {
        include: ["test/**/*.test.ts"],
        // Judge and inference tests spawn real processes; on 2-core machines they need room.
        testTimeout: 120_000,
        hookTimeout: 120_000,
        pool: "forks",
        fileParallelism: true,
        maxWorkers: 2,
        globalSetup: ["test/globalSetup.ts"],
        reporters: ["default", "./test/summaryReporter.ts"]
    }
});
