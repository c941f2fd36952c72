import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * Temporary folders that go away on every exit: a normal return or a throw (dispose), the end of
 * the process, and SIGINT/SIGTERM/SIGHUP (a timeout's kill, Ctrl-C), which would otherwise end
 * Node without running any `finally`. A SIGKILL cannot be caught: the folder's name carries the
 * process id, and `sweepStale` removes folders whose process no longer runs.
 */
const live = new Set<string>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let installed = false;

function removeAll(): void {
    for (const dir of live) rmSync(dir, { recursive: true, force: true });
    live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
    removeAll();
    // Then end as the signal would. Listening stops the default action, and other listeners (execa's
    // child cleanup) defer to it while this one listens: stop listening and raise it again.
    uninstall();
    process.kill(process.pid, signal);
}

function install(): void {
    if (installed) return;
    installed = true;
    for (const s of SIGNALS) process.on(s, onSignal);
    process.on("exit", removeAll);
}

function uninstall(): void {
    if (!installed) return;
    installed = false;
    for (const s of SIGNALS) process.off(s, onSignal);
    process.off("exit", removeAll);
}

/** A temporary folder `<parent>/<prefix><pid>-XXXXXX`; call `dispose()` when done (idempotent). */
export function makeTempDir(parent: string, prefix: string): { path: string; dispose: () => void } {
    const dir = mkdtempSync(path.join(parent, `${prefix}${process.pid}-`));
    live.add(dir);
    install();
    return {
        path: dir,
        dispose: () => {
            rmSync(dir, { recursive: true, force: true });
            live.delete(dir);
            if (live.size === 0) uninstall();
        }
    };
}

function running(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        // EPERM: it runs, under another user.
        return (err as NodeJS.ErrnoException).code === "EPERM";
    }
}

/** Removes `<parent>/<prefix><pid>-*` folders left by processes that no longer run; returns their names. */
export function sweepStale(parent: string, prefix: string): string[] {
    let names: string[];
    try {
        names = readdirSync(parent);
    } catch {
        return [];
    }
    const removed: string[] = [];
    for (const name of names) {
        if (!name.startsWith(prefix)) continue;
        const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
        if (!Number.isInteger(pid) || pid === process.pid || running(pid)) continue;
        rmSync(path.join(parent, name), { recursive: true, force: true });
        removed.push(name);
    }
    return removed;
}
