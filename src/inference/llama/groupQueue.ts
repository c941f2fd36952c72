import type { LockstepMember } from "../types.js";

/** A group ready to decode: its members in member order, and the call they came in. */
export interface ReadyGroup<T> {
    call: number;
    members: T[];
}

/**
 * The lockstep queue: requests arrive one by one, tagged with their group; a group becomes ready
 * once all its members are in, and ready groups are taken in the order they completed. A request
 * without a group is a group of one.
 */
export class GroupQueue<T extends { group?: LockstepMember | undefined }> {
    private readonly forming = new Map<string, { call: number; members: (T | undefined)[]; count: number }>();
    private ready: ReadyGroup<T>[] = [];
    private waiters: (() => void)[] = [];
    private closed = false;
    private solo = 0;

    /** Add one request of a call. */
    push(call: number, item: T): void {
        const g = item.group ?? { id: `\0solo${this.solo++}`, member: 0, size: 1 };
        const key = `${call}|${g.id}`;
        let f = this.forming.get(key);
        if (!f) this.forming.set(key, (f = { call, members: new Array<T | undefined>(g.size).fill(undefined), count: 0 }));
        if (f.members[g.member] === undefined) f.count++;
        f.members[g.member] = item;
        if (f.count === f.members.length) {
            this.forming.delete(key);
            this.ready.push({ call, members: f.members as T[] });
            this.wake();
        }
    }

    /** A call has sent everything: the members of its groups still incomplete come back (they cannot run). */
    end(call: number): T[] {
        const orphans: T[] = [];
        for (const [key, f] of this.forming)
            if (f.call === call) {
                this.forming.delete(key);
                for (const m of f.members) if (m !== undefined) orphans.push(m);
            }
        return orphans;
    }

    /** Drop everything of a call (its caller stopped reading). Groups already taken run on. */
    remove(call: number): void {
        this.end(call);
        this.ready = this.ready.filter((g) => g.call !== call);
    }

    /** No more requests will come; waiting takers get undefined once nothing is ready. */
    close(): void {
        this.closed = true;
        this.wake();
    }

    /** The next ready group, waiting while none is ready and the queue is open. */
    async take(): Promise<ReadyGroup<T> | undefined> {
        for (;;) {
            const g = this.ready.shift();
            if (g) return g;
            if (this.closed) return undefined;
            await new Promise<void>((resolve) => this.waiters.push(resolve));
        }
    }

    private wake(): void {
        const w = this.waiters;
        this.waiters = [];
        for (const resolve of w) resolve();
    }
}
