/**
 * Ctrl-C at any moment (issue #47): work that cannot be cut short where it runs (a model loading in its
 * worker, the judge's workers starting) is no longer waited for once the study stops. What it ends with
 * later is handed to `late` (a backend or pool that finished starting is closed), so nothing is left open.
 */

/** The error a stopped step rejects with; {@link isStopped} tells it from a failure. */
export class Stopped extends Error {
    override readonly name = "Stopped";
    constructor(what = "stopped") {
        super(what);
    }
}

/** Whether `err` is a step's answer to being stopped, not a failure of its own. */
export function isStopped(err: unknown): boolean {
    return err instanceof Stopped || (err instanceof Error && err.name === "AbortError");
}

/** Throws {@link Stopped} when `signal` has aborted. */
export function throwIfStopped(signal: AbortSignal | undefined, what?: string): void {
    if (signal?.aborted) throw new Stopped(what);
}

/**
 * `work`'s value, or undefined as soon as `signal` aborts, whichever comes first. Once aborted, what
 * `work` resolves to afterwards goes to `late` (to be closed), and its failure is ignored.
 */
export function unlessStopped<T>(work: Promise<T>, signal: AbortSignal | undefined, late: (value: T) => unknown = () => undefined): Promise<T | undefined> {
    if (!signal) return work;
    if (signal.aborted) {
        work.then(late, () => undefined);
        return Promise.resolve(undefined);
    }
    return new Promise<T | undefined>((resolve, reject) => {
        const onAbort = (): void => {
            work.then(late, () => undefined);
            resolve(undefined);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(
            (v) => {
                signal.removeEventListener("abort", onAbort);
                if (signal.aborted) return;
                resolve(v);
            },
            (err: unknown) => {
                signal.removeEventListener("abort", onAbort);
                if (signal.aborted) return;
                reject(err);
            }
        );
    });
}
