import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processAlive } from "../util/processAlive.js";

/** Scratch folders are named for the worker process that made them, so a later worker knows which are abandoned. */
const PREFIX = "eddy-shard-";
const OWNED = /^eddy-shard-(\d+)-/;

const live = new Set<string>();
let exitHook = false;

/** A private scratch folder for one shard (removed by removeScratch, or when this process exits in any way but SIGKILL). */
export function makeScratch(): string {
    if (!exitHook) {
        exitHook = true;
        process.on("exit", () => {
            for (const d of live) rmSync(d, { recursive: true, force: true });
        });
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
    live.add(dir);
    return dir;
}

export function removeScratch(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
}

/** Remove the scratch folders of worker processes that are gone (killed with SIGKILL, or the machine rebooted); returns how many. */
export function sweepScratch(): number {
    let removed = 0;
    let names: string[];
    try {
        names = readdirSync(os.tmpdir());
    } catch {
        return 0;
    }
    for (const name of names) {
        const pid = OWNED.exec(name)?.[1];
        if (!pid || Number(pid) === process.pid || processAlive(Number(pid))) continue;
        try {
            rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
            removed++;
        } catch {
            // Another user's folder: theirs to sweep.
        }
    }
    return removed;
}
