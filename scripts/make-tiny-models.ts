/**
 * `npm run models:tiny`: write eddy's deterministic tiny llama GGUFs (F32, Q8_0, Q4_0) into models/
 * (or the folder given as the first argument), replacing any that differ from what this eddy writes.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { sha256File } from "../src/util/files.js";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";
import { modelsDir } from "../src/util/paths.js";

// ensureTinyModels rewrites only missing or stale files (by content), never leaving a half-written one.
const paths = ensureTinyModels(path.resolve(process.argv[2] ?? modelsDir()));
for (const [quant, file] of Object.entries(paths))
    console.log(`${quant.padEnd(5)} ${file}  ${statSync(file).size} bytes  sha256 ${await sha256File(file)}`);
