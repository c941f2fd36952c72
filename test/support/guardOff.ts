import { JudgePool } from "../../src/judge/JudgePool.js";

/**
 * A judge pool without the in-process guard (EDDY_JUDGE_GUARD=0, read by the worker when it
 * starts; tests only), so that an answer can reach the kernel's layers itself (ctypes, libc's
 * SysV calls) and what is tested is those layers alone. The variable is put back at once.
 */
export async function startWithoutGuard(options: Parameters<typeof JudgePool.start>[0] = { workers: 1 }): Promise<JudgePool> {
    const saved = process.env.EDDY_JUDGE_GUARD;
    process.env.EDDY_JUDGE_GUARD = "0";
    try {
        return await JudgePool.start(options);
    } finally {
        if (saved === undefined) delete process.env.EDDY_JUDGE_GUARD;
        else process.env.EDDY_JUDGE_GUARD = saved;
    }
}
