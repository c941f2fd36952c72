import type { Command } from "commander";

/** `eddy kit verify <archive>`: every file against the kit's manifest, before anything is installed. */
export function registerKitVerifyCommand(kit: Command): void {
    kit.command("verify <archive>")
        .description("Check a kit archive (or an extracted kit folder) against its sha256 manifest; a changed, missing, unlisted or truncated file is refused by name")
        .option("--json", "print the result as JSON")
        .addHelpText("after", "\nExamples:\n  $ eddy kit verify eddy-kit-0.1.0-linux-x64.tgz\n  $ eddy kit verify ./eddy-kit-0.1.0-linux-x64")
        .action(async (archive: string, o: { json?: boolean }) => {
            const { verifyArchive } = await import("../../../kit/verifyArchive.js");
            const v = await verifyArchive(archive);
            const m = v.manifest;
            if (o.json) {
                process.stdout.write(JSON.stringify({ ok: true, archive, files: v.files, eddy: m.eddy, target: m.target, node: m.node, models: m.models, bytes: m.bytes }, null, 2) + "\n");
                return;
            }
            process.stdout.write(`ok: ${archive}: ${v.files} files match the manifest (eddy ${m.eddy}, ${m.target.os}-${m.target.arch}, llama.cpp ${m.target.llamaPlatforms.join(", ")}, built with Node ${m.node.version})\n`);
        });
}
