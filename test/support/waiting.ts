/** Waiting helpers for tests that drive processes: poll a condition, or bound a promise. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `what` every 50 ms until it holds; throws after `ms`. */
export async function until(what: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await what())) {
        if (Date.now() > end) throw new Error("timed out waiting");
        await sleep(50);
    }
}

/** The first value, or a rejection after `ms`: a process that hangs fails the test instead of stalling it. */
export const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
    Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what} did not finish within ${ms / 1000} s`)))]);
