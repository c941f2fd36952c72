/**
 * `npm run models:tiny`: write eddy's deterministic tiny llama GGUFs (F32, Q8_0, Q4_0) into models/
 * (or the folder given as the first argument), replacing any that are there.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";
import { modelsDir } from "../src/util/paths.js";

const dir = path.resolve(process.argv[2] ?? modelsDir());
for (const q of ["f32", "q8_0", "q4_0"]) rmSync(path.join(dir, `eddy-tiny-${q}.gguf`), { force: true });
const paths = ensureTinyModels(dir);
for (const [quant, file] of Object.entries(paths)) {
    const bytes = readFileSync(file);
    console.log(`${quant.padEnd(5)} ${file}  ${bytes.length} bytes  sha256 ${createHash("sha256").update(bytes).digest("hex")}`);
}
