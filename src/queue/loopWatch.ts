/**
 * How long this process's event loop is held: a timer that should fire every `tickMs` measures how late it
 * fires. A worker renews its shard's lock from this loop (every fifth of the lock's time), so a hold near
 * the lock's time loses the lock; one past half of it is said (once per hold), and the longest is kept
 * for tests and benchmarks.
 */
export class LoopWatch {
    longest = 0;
    private readonly timer: NodeJS.Timeout;
    private last = performance.now();

    constructor(lockMs: number, warn: (ms: number) => void) {
        const tickMs = Math.max(10, Math.min(100, Math.floor(lockMs / 50)));
        this.timer = setInterval(() => {
            const now = performance.now();
            const late = Math.round(now - this.last - tickMs);
            this.last = now;
            if (late > this.longest) this.longest = late;
            if (late > lockMs / 2) warn(late);
        }, tickMs);
        this.timer.unref();
    }

    close(): void {
        clearInterval(this.timer);
    }
}
