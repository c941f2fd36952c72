// One shard, run in a process of its own (forked by the worker, see shardChild.ts): planning, inference,
// judging and SQLite writes block this process's event loop, never the worker's, which renews the
// shard's lock in Redis. A worker killed outright closes the IPC channel, and this process ends with it.
import { oneLine } from "../util/errors.js";
import { runShardIn } from "./runShard.js";
import type { ShardChildRequest, ShardChildReply } from "./shardChild.js";

const stop = new AbortController();
const send = (m: ShardChildReply): Promise<void> => new Promise((resolve) => process.send!(m, undefined, {}, () => resolve()));

process.on("disconnect", () => process.exit(1));
process.on("SIGTERM", () => stop.abort());
process.on("SIGINT", () => {}); // the worker decides (a terminal's Ctrl-C reaches the whole group)
process.once("message", (m: ShardChildRequest) => {
    runShardIn(m.db, m.job, m.settings, stop.signal).then(
        async (result) => {
            await send({ ok: true, result });
            process.exit(0);
        },
        async (err: unknown) => {
            await send({ ok: false, error: oneLine(err), stopped: stop.signal.aborted });
            process.exit(0);
        }
    );
});
