import { JudgePool } from "./JudgePool.js";
import type { IsolationReport } from "./types.js";

/** Which protections the judge would put around candidate code on this machine (for `eddy doctor`). */
export async function probeIsolation(python?: string): Promise<IsolationReport> {
    const pool = await JudgePool.start(python === undefined ? { workers: 1 } : { workers: 1, python });
    try {
        return pool.isolation;
    } finally {
        await pool.close();
    }
}
