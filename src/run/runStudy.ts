import { openStore } from "../store/Store.js";
import { defaultDbPath } from "../util/paths.js";
import type { StudyConfig } from "./config.js";
import { Study } from "./study/Study.js";
import type { StudyHooks, StudyResult } from "./study/types.js";

export type { StudyHooks, StudyProgress, StudyResult, StudyStats } from "./study/types.js";
export { countFences, finalCategory } from "./study/JudgeStage.js";
export { responseCacheKey } from "./study/GenerateStage.js";
export { resumeConfig } from "./study/openRun.js";
export { Study } from "./study/Study.js";

/**
 * Run (or continue) a study: plan it, generate every missing response, extract and judge each as
 * it arrives, and store everything (see {@link Study} for the steps).
 */
export async function runStudy(input: StudyConfig, hooks: StudyHooks = {}): Promise<StudyResult> {
    const store = openStore(input.db ?? defaultDbPath());
    try {
        return await new Study(store, input, hooks).run();
    } finally {
        store.close();
    }
}
