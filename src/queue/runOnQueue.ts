import type { StudyConfig } from "../run/config.js";
import type { TemplateLibrary } from "../templates/library.js";
import { safeTerminalLine } from "../util/safeText.js";
import { runQueued, type QueuedResult } from "./coordinator.js";
import { parseQueueUrl } from "./queueUrl.js";

/**
 * `eddy run … --queue <url>`: the coordinator with a line of progress per finished shard, including each
 * worker node's throughput. For RunCommand (H2) to call when --queue is given.
 */
export async function runOnQueue(config: StudyConfig, url: string, o: { insecureQueue?: boolean; progress?: boolean; library?: TemplateLibrary } = {}): Promise<QueuedResult> {
    const target = parseQueueUrl(url, { insecure: o.insecureQueue });
    const say = (line: string): void => void process.stderr.write(`eddy: ${safeTerminalLine(line)}\n`);
    let announced = false;
    // Ctrl-C (or a TERM): one line now, the coordinator stops at its next look and says what it kept (exit 130); a second one quits at once.
    const stop = new AbortController();
    const onSignal = (): void => {
        if (stop.signal.aborted) process.exit(130);
        say("stopping the coordinator: stored shards are kept, queued ones stay in Redis for workers (Ctrl-C again to quit now)");
        stop.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    return runQueued(config, target, {
        ...(o.library ? { library: o.library } : {}),
        signal: stop.signal,
        log: say,
        onProgress: (p) => {
            if (!announced) {
                announced = true;
                say(`run ${p.runId}: ${p.shards} shards on ${target.where} (${p.done} already stored)`);
                return;
            }
            if (o.progress === false) return;
            const nodes = Object.entries(p.nodes).map(([n, x]) => `${n} ${x.shards} shards ${x.perS.toFixed(1)} answers/s`).join(", ");
            say(`${p.done}/${p.shards} shards stored — ${nodes}`);
        }
    }).finally(() => {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
    });
}
