#!/usr/bin/env node
// First: `eddy merge` says what a Ctrl-C interrupted, whenever it comes; its signals are held before anything else
// loads (main.js is imported after, dynamically: a static import would be loaded, with all it imports, before this
// module's first line runs).
import "./heldSignals.js";

// `eddy … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr])
    stream.on("error", (err: NodeJS.ErrnoException) => {
        if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
        throw err;
    });

const { main } = await import("./main.js");
process.exitCode = await main(process.argv);
// Ctrl-C (exit 130): the command has stored what it had and said so; a child that is still winding down (a
// model's worker, an oracle's check) is not waited for past half a second (issue #47: Ctrl-C within a second).
if (process.exitCode === 130) setTimeout(() => process.exit(130), 500).unref();
