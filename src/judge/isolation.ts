import { JudgePool } from "./JudgePool.js";
import type { IsolationReport, JudgeEnvironment } from "./types.js";

/** Which protections the judge would put around candidate code on this machine, and its Python environment (for `eddy doctor`). */
export async function probeIsolation(python?: string): Promise<IsolationReport & { runtimes: Record<string, string | null>; environment: JudgeEnvironment }> {
    // Only looking: a machine without a sandbox is reported, not refused.
    const pool = await JudgePool.start({ workers: 1, allowUnsandboxed: true, ...(python === undefined ? {} : { python }) });
    try {
        return { ...pool.isolation, runtimes: pool.runtimes, environment: pool.environment };
    } finally {
        await pool.close();
    }
}
