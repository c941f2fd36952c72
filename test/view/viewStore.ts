import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

export const BIN = path.resolve("dist/cli/bin.js");

/** Runs the built CLI; throws with its stderr when it fails. */
export function eddy(args: string[]): string {
    const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    if (r.status !== 0) throw new Error(`eddy ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
}

/** What a model could write to attack a viewer: script, handlers, javascript: links, markup that ends a <pre>. */
export const HOSTILE = [
    "HOSTILE-MARKER here you go",
    "</pre><script>window.__pwned='script'</script>",
    '<img src=x onerror="window.__pwned=\'img\'">',
    "[click me](javascript:window.__pwned='md-link')",
    '<a href="javascript:window.__pwned=\'a\'">a link</a>',
    "<svg onload=\"window.__pwned='svg'\"></svg><iframe src=\"http://example.com/\"></iframe>",
    '<link rel="stylesheet" href="http://example.com/x.css"><meta http-equiv="refresh" content="0;url=http://example.com/">'
].join("\n");

/** Where the test store's answers come from. */
export interface ViewStore {
    db: string;
    reference: string;
    replay: string;
}

/**
 * A store built by eddy's own commands: a reference run (every answer passes) on two templates, then a
 * replay run of the same questions in which one answer is wrong (copy_last_n #1 round 0: an
 * assertion_error, marked SENTINEL-wrong) and one is hostile text around correct code (copy_block #0 round 1).
 */
export function buildViewStore(dir: string): ViewStore {
    const db = path.join(dir, "eddy.db");
    const common = ["-t", "copy_last_n,copy_block", "-M", "3", "-R", "2", "--judge-workers", "2", "--db", db];
    const reference = eddy(["run", "--backend", "reference", ...common]).trim().split("\n").pop()!;
    const rows = eddy(["export", reference, "--db", db])
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { template: string; instance: number; round: number; response: string; code: string });
    const lines = rows.map((r) => {
        let response = r.response;
        if (r.template === "copy_last_n" && r.instance === 1 && r.round === 0) response = "```python\ndef copy_last_n(values):\n    return None  # SENTINEL-wrong\n```";
        if (r.template === "copy_block" && r.instance === 0 && r.round === 1) response = `${HOSTILE}\n\`\`\`python\n# </pre><script>window.__pwned='code'</script>\n${r.code}\`\`\`\n`;
        return JSON.stringify({ template: r.template, instance: r.instance, round: r.round, response });
    });
    const file = path.join(dir, "answers.jsonl");
    writeFileSync(file, lines.join("\n") + "\n");
    const replay = eddy(["run", "--backend", "replay", "--replay", file, ...common]).trim().split("\n").pop()!;
    return { db, reference, replay };
}

/** `eddy view` on a free port: the process and the URL it printed. */
export async function startView(db: string, extra: string[] = []): Promise<{ proc: ChildProcess; url: string; stderr: () => string }> {
    const proc = spawn(process.execPath, [BIN, "view", "--db", db, "--port", "0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        proc.stdout!.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /(http:\/\/\S+\/)/.exec(out);
            if (m) resolve(m[1]!);
        });
        proc.once("exit", (code) => reject(new Error(`eddy view exited ${code}: ${err}`)));
    });
    return { proc, url, stderr: () => err };
}
