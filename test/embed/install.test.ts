import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const exec = promisify(execFile);
const ortDir = path.dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json"));

// onnxruntime-node's postinstall downloads CUDA provider libraries from NuGet on linux/x64: eddy
// needs only the CPU binary the npm package already holds, so install must skip that step.
describe("onnxruntime-node installs from npm alone", () => {
    it(".npmrc turns the post-install download off", () => {
        expect(readFileSync(".npmrc", "utf8")).toMatch(/^onnxruntime-node-install=skip$/m);
    });

    it("its post-install script, run as npm runs it with that setting, exits at once without touching the network", async () => {
        const before = readdirSync(ortDir, { recursive: true }).length;
        // A proxy that refuses every connection: any download attempt would fail the script.
        const env = { ...process.env, npm_config_onnxruntime_node_install: "skip", GLOBAL_AGENT_HTTP_PROXY: "http://127.0.0.1:9", GLOBAL_AGENT_HTTPS_PROXY: "http://127.0.0.1:9" };
        const r = await exec(process.execPath, [path.join(ortDir, "script", "install.js")], { cwd: ortDir, env, timeout: 30_000 });
        expect(r.stderr).toBe("");
        expect(readdirSync(ortDir, { recursive: true }).length).toBe(before);
    });

    it("the bundled CPU backend loads in a fresh process", async () => {
        const r = await exec(process.execPath, ["-e", "const o = require('onnxruntime-node'); console.log(JSON.stringify(o.listSupportedBackends()))"]);
        const backends = JSON.parse(r.stdout) as { name: string; bundled: boolean }[];
        expect(backends).toContainEqual({ name: "cpu", bundled: true });
    });
});
