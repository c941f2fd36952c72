import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { safeTerminalLine } from "../../util/safeText.js";

/** The port `eddy view` listens on unless told. */
export const DEFAULT_VIEW_PORT = 7733;

/** `eddy view`: a live, read-only viewer over the store, from a score down to the answer that made it (issue #33). */
export function registerViewCommand(program: Command): void {
    program
        .command("view")
        .description("Browse the store in a web browser, read-only: runs, scores, neighbourhood grids, every answer, filters, search and comparisons")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .option("--port <n>", `port to listen on (0: any free port)`, String(DEFAULT_VIEW_PORT))
        .option("--host <address>", "listen on another address than the loopback 127.0.0.1 (others on the network can then read every answer)")
        .addHelpText(
            "after",
            "\nThe viewer opens the database read-only and writes nothing; a study that is running shows its new answers on reload.\n\nExamples:\n  $ eddy view                      # http://127.0.0.1:7733/\n  $ eddy view --db lab.db --port 0 # any free port; the URL is printed"
        )
        .action(async (o: { db?: string; port: string; host?: string }) => {
            if (!/^\d+$/.test(o.port) || Number(o.port) > 65535) throw new EddyError(`--port must be a port number from 0 to 65535, got '${o.port}'`);
            if (o.host !== undefined && o.host.trim() === "") throw new EddyError("--host needs an address");
            const { isLoopback, startViewer } = await import("../../view/server.js");
            const db = o.db ?? defaultDbPath();
            const viewer = await startViewer({ db, port: Number(o.port), ...(o.host !== undefined ? { host: o.host } : {}) });
            if (!isLoopback(viewer.host))
                process.stderr.write(
                    safeTerminalLine(`eddy view: listening on ${viewer.host}, not the loopback address: anyone who can reach this machine on port ${viewer.port} can read every answer and verdict detail in ${db}`) + "\n"
                );
            process.stdout.write(`eddy view: ${safeTerminalLine(viewer.url)} (read-only: ${safeTerminalLine(db)}; Ctrl-C to stop)\n`);
            await new Promise<void>((resolve) => {
                const stop = (): void => {
                    process.off("SIGINT", stop);
                    process.off("SIGTERM", stop);
                    void viewer.close().then(resolve);
                };
                process.on("SIGINT", stop);
                process.on("SIGTERM", stop);
            });
        });
}
