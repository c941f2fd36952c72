import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { tinyEmbedDir, writeTinyEmbedModel } from "../src/embed/tinyEmbedModel.js";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Tests that spawn the CLI run the built `dist/`; build it once per test run so it matches src/. */
export default function setup(): void {
    execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
    // eddy's own tiny GGUF models (written once, deterministic): many tests load them.
    ensureTinyModels();
    // eddy's tiny embedding model, which examples name (its own small tokenizer: nothing copied from ../shared).
    if (!existsSync(path.join(tinyEmbedDir(), "onnx", "model.onnx"))) writeTinyEmbedModel(tinyEmbedDir());
}
