import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";
import { pythonCommand } from "../src/judge/workerScript.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Tests that spawn the CLI run the built `dist/`; build it once per test run so it matches src/. */
export default function setup(): void {
    execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
    // So a test that imports eddy from src/ starts eddy's child processes (a llama.cpp worker, a shard's process) from
    // that build, not from src/ under tsx (src/util/childModule.ts): the same code, 1.5 to 2 CPU-seconds less a child.
    process.env.EDDY_CHILDREN_FROM_BUILD = "1";
    // One interpreter for the whole suite, resolved as eddy resolves it: eddy does so once per process,
    // and the suite starts hundreds of eddy processes (a pyenv shim costs ~0.6 s each time it runs).
    // test/judge/pythonCommand.test.ts checks the resolution itself.
    if (!process.env.EDDY_PYTHON) process.env.EDDY_PYTHON = pythonCommand();
    // The judge's host factor, measured now, while the machine is still quiet, and stored as a user's first study
    // stores it: on a fresh machine (CI's) it is otherwise never stored once the suite loads the machine, and every
    // judge pool measures it again (about 0.3 CPU-seconds each). Tests of the measurement use their own cache folder.
    execFileSync(process.env.EDDY_PYTHON, ["-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); from eddy_judge.budget import host_factor; host_factor()", path.join(root, "src/judge/python")], { stdio: "inherit" });
    // eddy's own tiny GGUF models (written once, deterministic): many tests load them.
    ensureTinyModels();
    // eddy's tiny embedding model, which examples name, is not written here: eddy writes it on demand
    // (test/docs/hints.test.ts checks that on a fresh folder), as a new user's first `--embed-model` does.
}
