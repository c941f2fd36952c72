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
