/**
 * A bounded async queue between two pipeline stages. `push` waits while the queue is full
 * (back-pressure on the producer), `shift` waits while it is empty; `close` lets consumers
 * drain what is left and then see `undefined`. Hand-written: it is 40 lines, and the npm
 * options (p-queue and friends) schedule tasks rather than hand items between stages.
 */
export class Channel<T> {
    private items: T[] = [];
    private closed = false;
    private waitingConsumers: ((v: T | undefined) => void)[] = [];
    private waitingProducers: (() => void)[] = [];

    constructor(readonly capacity: number) {
        if (capacity < 1) throw new Error("channel capacity must be >= 1");
    }

    /** Items waiting. */
    get size(): number {
        return this.items.length;
    }

    /** Add an item; resolves once there was room. Pushing to a closed channel drops the item. */
    async push(item: T): Promise<void> {
        while (!this.closed && this.items.length >= this.capacity && this.waitingConsumers.length === 0)
            await new Promise<void>((resolve) => this.waitingProducers.push(resolve));
        if (this.closed) return;
        const consumer = this.waitingConsumers.shift();
        if (consumer) consumer(item);
        else this.items.push(item);
    }

    /** The next item, or `undefined` once the channel is closed and empty. */
    async shift(): Promise<T | undefined> {
        const item = this.items.shift();
        if (item !== undefined) {
            this.waitingProducers.shift()?.();
            return item;
        }
        if (this.closed) return undefined;
        return new Promise<T | undefined>((resolve) => this.waitingConsumers.push(resolve));
    }

    /** No more items will come; waiting consumers get `undefined` after the rest is drained. */
    close(): void {
        this.closed = true;
        for (const c of this.waitingConsumers.splice(0)) c(undefined);
        for (const p of this.waitingProducers.splice(0)) p();
    }

    /** Drop everything still queued (used when stopping early); returns how many were dropped. */
    clear(): number {
        const n = this.items.length;
        this.items = [];
        for (const p of this.waitingProducers.splice(0)) p();
        return n;
    }
}
