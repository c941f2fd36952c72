/**
 * The shared queue every sequence pulls from. Requests with the same prefix key (the R rounds of
 * one prompt) form a group; a sequence that starts a group keeps it, so the rounds run back to back
 * on one sequence and reuse its evaluated prompt. Once every request is in (`inputDone`), an idle
 * sequence with no unclaimed group left steals from the largest claimed group rather than wait
 * (the tail of a run); before that it waits, since more prompts are coming.
 */
export class PrefixQueue<T extends { prefixKey?: string | undefined }> {
    private readonly groups = new Map<string, { items: T[]; owner: number | null }>();
    private waiters: (() => void)[] = [];
    private closed = false;
    private anon = 0;
    private open = 0;

    /** One more producer is sending requests (stealing waits until all have finished). */
    beginInput(): void {
        this.open++;
    }

    /** A producer has sent all its requests. */
    endInput(): void {
        this.open = Math.max(0, this.open - 1);
        this.wake();
    }

    /** Add one request. */
    push(item: T): void {
        const key = item.prefixKey ?? `\0anon${this.anon++}`;
        const group = this.groups.get(key);
        if (group) group.items.push(item);
        else this.groups.set(key, { items: [item], owner: null });
        this.wake();
    }

    /** No more requests will come; waiting takers get undefined once the queue is empty. */
    close(): void {
        this.closed = true;
        this.wake();
    }

    /** The next request for sequence `slot`, waiting while the queue is empty but still open. */
    async take(slot: number): Promise<T | undefined> {
        for (;;) {
            const item = this.pick(slot);
            if (item) return item;
            if (this.closed) return undefined;
            await new Promise<void>((resolve) => this.waiters.push(resolve));
        }
    }

    /** Drop the queued requests that match (a cancelled call); returns how many. Requests already taken run on. */
    remove(match: (item: T) => boolean): number {
        let removed = 0;
        for (const [key, g] of this.groups) {
            const keep = g.items.filter((item) => !match(item));
            removed += g.items.length - keep.length;
            if (keep.length === 0) this.groups.delete(key);
            else g.items = keep;
        }
        this.wake();
        return removed;
    }

    /** Release the groups a sequence holds (when it stops). */
    release(slot: number): void {
        for (const g of this.groups.values()) if (g.owner === slot) g.owner = null;
        this.wake();
    }

    private pick(slot: number): T | undefined {
        let unowned: [string, { items: T[]; owner: number | null }] | undefined;
        let largest: [string, { items: T[]; owner: number | null }] | undefined;
        for (const entry of this.groups) {
            const g = entry[1];
            if (g.owner === slot) return this.shift(entry[0], g, slot);
            if (g.owner === null && !unowned) unowned = entry;
            if (!largest || g.items.length > largest[1].items.length) largest = entry;
        }
        // (this slot owns no group here: the loop above returned at the first one it owned)
        const chosen = unowned ?? (this.open === 0 ? largest : undefined);
        if (!chosen) return undefined;
        return this.shift(chosen[0], chosen[1], slot);
    }

    private shift(key: string, g: { items: T[]; owner: number | null }, slot: number): T {
        const item = g.items.shift()!;
        if (g.items.length === 0) this.groups.delete(key);
        else if (g.owner === null) g.owner = slot;
        return item;
    }

    private wake(): void {
        const w = this.waiters;
        this.waiters = [];
        for (const resolve of w) resolve();
    }
}
