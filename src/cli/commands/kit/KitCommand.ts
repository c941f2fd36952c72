import type { Command } from "commander";
import { registerKitVerifyCommand } from "./VerifyCommand.js";

const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

/** `eddy kit`: an install kit for machines without network; `eddy kit verify` checks one. */
export function registerKitCommand(program: Command): void {
    const kit = program
        .command("kit")
        .description("Build an install kit for an air-gapped machine: eddy, its dependencies for the named platforms, Node headers, optional models, install.sh and a sha256 manifest, in one archive")
        .option("--out <file>", "archive to write (default eddy-kit-<version>-<platform>.tgz)")
        .option("--platform <list>", "node-llama-cpp builds to carry, comma-separated, one OS and CPU (default: this machine's CPU build, e.g. linux-x64; add linux-x64-cuda, linux-x64-vulkan, …)")
        .option("--models <gguf...>", "GGUF model files to carry (installed into <prefix>/models)")
        .option("--llama-tools", "carry llama-quantize, llama-imatrix and llama-server as scripts/build-llama-tools.sh built them here (for eddy quant make on a machine without a compiler; same CPU)")
        .option("--gzip-level <n>", "1 (fastest) … 9 (smallest)", "6")
        .option("--json", "print the result as JSON")
        .addHelpText(
            "after",
            [
                "",
                "On the air-gapped machine (Node, python3; a C++ toolchain only if its Node ABI differs):",
                "  $ tar xzf eddy-kit-<version>-linux-x64.tgz",
                "  $ eddy-kit-<version>-linux-x64/install.sh --prefix ~/eddy   # verifies, installs, runs eddy doctor",
                "  $ ~/eddy/bin/eddy demo",
                "",
                "Examples:",
                "  $ eddy kit",
                "  $ eddy kit --platform linux-x64,linux-x64-cuda --models models/coder-q4_k_m.gguf",
                "  $ eddy kit verify eddy-kit-0.1.0-linux-x64.tgz"
            ].join("\n")
        )
        .action(async (o: { out?: string; platform?: string; models?: string[]; llamaTools?: boolean; gzipLevel: string; json?: boolean }) => {
            const { buildKit } = await import("../../../kit/buildKit.js");
            const started = Date.now();
            const r = await buildKit({
                out: o.out,
                platform: o.platform,
                models: o.models,
                ...(o.llamaTools ? { llamaTools: true } : {}),
                gzipLevel: Number(o.gzipLevel),
                onLog: o.json ? undefined : (l) => process.stderr.write(`eddy kit: ${l}\n`)
            });
            const seconds = (Date.now() - started) / 1000;
            if (o.json) {
                process.stdout.write(JSON.stringify({ ...r, seconds }, null, 2) + "\n");
                return;
            }
            process.stdout.write(
                [
                    `kit:      ${r.archive}`,
                    `size:     ${mb(r.archiveBytes)} (${mb(r.unpackedBytes)} unpacked, ${r.files} files; dependencies ${mb(r.treeBytes)}, ${mb(r.unprunedTreeBytes)} before pruning)`,
                    `carries:  llama.cpp ${r.target.llamaPlatforms.join(", ")}; Node ${process.versions.node} headers: ${r.nodeHeaders ? "yes" : "no"}`,
                    `sha256:   ${r.archiveSha256}`,
                    `install:  tar xzf ${r.archive.split("/").pop()} && ${r.folder}/install.sh --prefix ~/eddy`,
                    `built in ${seconds.toFixed(1)} s`
                ].join("\n") + "\n"
            );
        });
    registerKitVerifyCommand(kit);
}
