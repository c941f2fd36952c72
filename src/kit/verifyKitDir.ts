/**
 * `node eddy/dist/kit/verifyKitDir.js <kit folder>`: install.sh's integrity check, before anything
 * is installed. Node built-ins only, so it runs from the extracted kit with nothing installed.
 */
import { describeProblems, verifyDirectory } from "./manifest.js";

const dir = process.argv[2];
if (!dir) {
    process.stderr.write("usage: verifyKitDir <kit folder>\n");
    process.exit(2);
}
try {
    const { manifest, problems } = await verifyDirectory(dir);
    if (problems.length) {
        for (const p of problems.slice(0, 20)) process.stderr.write(`kit: ${p.path}: ${p.problem}\n`);
        process.stderr.write(`eddy: kit refused: ${describeProblems(problems)}\n`);
        process.exit(1);
    }
    process.stderr.write(`kit: ${manifest.files.length} files match manifest.json (eddy ${manifest.eddy}, ${manifest.target.os}-${manifest.target.arch})\n`);
} catch (err) {
    process.stderr.write(`eddy: kit refused: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
}
