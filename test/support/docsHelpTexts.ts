import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BIN, ROOT } from "../run/helpers.js";

/** One command's `--help`, as `eddy <words…> --help` prints it (stdout). */
export interface HelpText {
    words: string[];
    text: string;
}

/**
 * In one Node process (not a terminal, as each `eddy … --help` spawned here would be): the built CLI's own
 * `main` (what dist/cli/bin.js runs) with `<words…> --help`, for `eddy` and every command and subcommand,
 * found by walking the "Commands:" section of each help text. The text is what `main` writes to stdout;
 * a help that exits non-zero, or writes nothing, fails the walk. One process rather than one per command
 * (43 of them, each loading its command's modules afresh: ~16 CPU-s a walk, against ~1).
 */
const WALK = `
const [main, bin] = process.argv.slice(1);
const { main: run } = await import(main);
const out = [];
const visit = async (words) => {
    let text = "";
    const write = process.stdout.write;
    process.stdout.write = (chunk) => ((text += String(chunk)), true);
    let code;
    try {
        code = await run([process.execPath, bin, ...words, "--help"]);
    } finally {
        process.stdout.write = write;
    }
    if (code !== 0 || text === "") throw new Error(\`eddy \${words.join(" ")} --help exited \${code}\${text === "" ? " and printed nothing" : ""}\`);
    out.push({ words, text });
    for (const line of text.split("\\nCommands:\\n")[1]?.split("\\n") ?? []) {
        const m = /^ {2}([a-z][\\w-]*)\\b/.exec(line);
        if (m && m[1] !== "help") await visit([...words, m[1]]);
    }
};
await visit([]);
process.stdout.write(JSON.stringify(out));
`;

/** Every help text of the built CLI, `eddy` first, then each command and its subcommands in help order. */
export function helpTree(env: NodeJS.ProcessEnv): HelpText[] {
    const main = pathToFileURL(path.join(ROOT, "dist/cli/main.js")).href;
    const json = execFileSync(process.execPath, ["--input-type=module", "-e", WALK, main, BIN], { encoding: "utf8", env, cwd: ROOT, maxBuffer: 64 << 20 });
    return JSON.parse(json) as HelpText[];
}
