import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { askOffers, OFFER_OPTIONS } from "../../../inference/backends.js";
import type { ModelInfo } from "../../../inference/gguf/inspectGguf.js";
import { EddyError, oneLine } from "../../../util/errors.js";
import { modelsDir } from "../../../util/paths.js";
import { renderPairs, renderTable } from "../../../report/terminalTable.js";

/** `eddy models list|inspect`: GGUF files and what their headers say (weights are never loaded). */
export function registerModelsCommand(program: Command): void {
    const models = program
        .command("models")
        .description("List and inspect GGUF model files (header only, no weights loaded)")
        .addHelpText("after", "\nExamples:\n  $ eddy models list\n  $ eddy models list models --json\n  $ eddy models inspect models/eddy-tiny-q8_0.gguf --json");

    const list = models
        .command("list")
        .description("List the GGUF files under models/ (or a folder) with architecture, quantisation and size")
        .argument("[dir]", "folder to scan (default: models/, or EDDY_MODELS)")
        .option("--json", "print JSON to stdout")
        .option("--sha256", "also hash every file (reads each whole file: slow for large models)");
    // Where a backend that serves models is (--base-url): list what it serves instead (llama-server, vLLM, Ollama).
    for (const o of OFFER_OPTIONS) list.option(o.flags, `list what is served there instead: ${o.description}`);
    list.addHelpText("after", "\nExamples:\n  $ eddy models list\n  $ eddy models list models --json --sha256   # a folder of GGUF files\n  $ eddy models list --base-url http://127.0.0.1:8080/v1")
        .action(async (dir: string | undefined, opts: { json?: boolean; sha256?: boolean; [where: string]: unknown }) => {
            const given = OFFER_OPTIONS.filter((o) => opts[o.key] !== undefined);
            if (given.length > 0) {
                if (dir !== undefined) throw new EddyError(`give a folder or ${given.map((o) => o.flags.split(" ")[0]).join(", ")}, not both`);
                const offer = (await askOffers(Object.fromEntries(given.map((o) => [o.key, opts[o.key]]))))!;
                if (opts.json) {
                    process.stdout.write(JSON.stringify(offer, null, 2) + "\n");
                    return;
                }
                const facts = Object.entries(offer.facts).map(([k, v]) => `${k} ${v}`).join(", ");
                process.stdout.write(`${offer.engine} at ${offer.source}${facts ? ` (${facts})` : ""}\n`);
                process.stdout.write(`reproducible: ${offer.reproducible.known ? "yes" : "not known"}: ${offer.reproducible.why}\n`);
                const table = offer.models.map((m) => [m.id, m.aliases.join(", ") || "-", m.contextSize !== undefined ? String(m.contextSize) : "-", typeof m.facts.n_params === "number" ? formatCount(m.facts.n_params) : "-", typeof m.facts.size === "number" ? formatBytes(m.facts.size) : "-"]);
                process.stdout.write(renderTable(["model (--model)", "aliases", "context", "params", "size"], table, { wide: true }) + "\n");
                return;
            }
            // node-llama-cpp is loaded only by the commands that need it, so the CLI starts fast
            const { inspectGguf, inspectGgufHeader } = await import("../../../inference/gguf/inspectGguf.js");
            const root = path.resolve(dir ?? modelsDir());
            if (!existsSync(root) || !statSync(root).isDirectory()) throw new EddyError(`not a folder: ${root}`);
            const rows: ((Omit<ModelInfo, "sha256"> & { sha256?: string; has_chat_template: boolean }) | { path: string; file: string; error: string })[] = [];
            for (const file of findGgufFiles(root)) {
                try {
                    const info = opts.sha256 ? await inspectGguf(file) : await inspectGgufHeader(file);
                    const row = { ...info, file: path.relative(root, file), has_chat_template: info.chat_template !== undefined };
                    delete row.chat_template; // long; `models inspect` shows it
                    rows.push(row);
                } catch (err) {
                    rows.push({ path: file, file: path.relative(root, file), error: oneLine(err) });
                }
            }
            if (opts.json) {
                process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
                return;
            }
            if (rows.length === 0) {
                process.stdout.write(`no GGUF files in ${root} (put models there, or run 'npm run models:tiny' for eddy's tiny test models)\n`);
                return;
            }
            const table = rows.map((r) =>
                "error" in r
                    ? [r.file, "-", "-", "-", "-", r.error]
                    : [r.file, r.architecture, r.quantization, r.size_label ?? formatCount(r.parameter_count), formatBytes(r.size_bytes), r.has_chat_template ? "chat template" : "no chat template"]
            );
            process.stdout.write(renderTable(["file", "arch", "quant", "params", "size", "note"], table, { wide: true }) + "\n");
        });

    models
        .command("inspect")
        .description("Show a GGUF file's metadata: architecture, quantisation, sha256, size, context, chat template")
        .argument("<file>", "GGUF file")
        .option("--json", "print JSON to stdout")
        .addHelpText("after", "\nExamples:\n  $ eddy models inspect models/eddy-tiny-q8_0.gguf\n  $ eddy models inspect models/eddy-tiny-f32.gguf --json")
        .action(async (file: string, opts: { json?: boolean }) => {
            const { inspectGguf } = await import("../../../inference/gguf/inspectGguf.js");
            const info = await inspectGguf(file);
            if (opts.json) {
                process.stdout.write(JSON.stringify(info, null, 2) + "\n");
                return;
            }
            const lines: [string, string][] = [
                ["file", info.path],
                ["architecture", info.architecture],
                ["quantization", info.quantization],
                ["parameters", `${formatCount(info.parameter_count)}${info.size_label ? ` (${info.size_label})` : ""}`],
                ["size", `${formatBytes(info.size_bytes)} (${info.size_bytes} bytes)`],
                ["sha256", info.sha256],
                ["context length", String(info.context_length ?? "?")],
                ["layers", String(info.layers ?? "?")],
                ["tokenizer", info.tokenizer ?? "?"],
                ["chat template", info.chat_template === undefined ? "none (a plain completion prompt will be used)" : `${info.chat_template.length} characters`]
            ];
            for (const line of renderPairs(lines)) process.stdout.write(line + "\n");
        });
}

/** GGUF files under a folder, recursively, sorted. */
export function findGgufFiles(root: string): string[] {
    const out: string[] = [];
    const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
            const p = path.join(dir, e.name);
            if (e.isDirectory()) walk(p);
            else if (e.isFile() && e.name.toLowerCase().endsWith(".gguf")) out.push(p);
        }
    };
    walk(root);
    return out.sort();
}

function formatBytes(n: number): string {
    const units = ["B", "KB", "MB", "GB", "TB"];
    let i = 0;
    let v = n;
    while (v >= 1024 && i < units.length - 1) {
        v /= 1024;
        i++;
    }
    return `${v.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

function formatCount(n: number): string {
    if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
    if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
    if (n >= 1e3) return `${(n / 1e3).toFixed(0)}K`;
    return String(n);
}
