import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { packageRoot } from "../../src/util/paths.js";
import { unwrapMessages } from "../support/messages.js";

const run = promisify(execFile);
const bin = path.join(packageRoot(), "dist/cli/bin.js");

async function eddy(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
        const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: packageRoot(), maxBuffer: 1 << 24, env: { ...process.env, ...env } });
        return { code: 0, stdout, stderr };
    } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
}

describe("eddy models / generate", () => {
    const tiny = ensureTinyModels();

    it("models list --json lists the GGUF files of a folder with their header facts", async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-list-"));
        ensureTinyModels(dir);
        writeFileSync(path.join(dir, "broken.gguf"), "not a model");
        const { code, stdout } = await eddy(["models", "list", dir, "--json"]);
        expect(code).toBe(0);
        const rows = JSON.parse(stdout) as Record<string, unknown>[];
        expect(rows.map((r) => r.file)).toEqual(["broken.gguf", "eddy-tiny-f32.gguf", "eddy-tiny-q4_0.gguf", "eddy-tiny-q8_0.gguf"]);
        expect(rows[0]!.error).toMatch(/not a GGUF file/);
        expect(rows[2]).toMatchObject({ architecture: "llama", quantization: "Q4_0" });
        expect(rows[2]!.sha256).toBeUndefined(); // header only unless --sha256
        const hashed = JSON.parse((await eddy(["models", "list", dir, "--json", "--sha256"])).stdout) as Record<string, unknown>[];
        expect(hashed[2]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it("models inspect --json has architecture, quantization, sha256, size_bytes", async () => {
        const { code, stdout } = await eddy(["models", "inspect", tiny.q8_0, "--json"]);
        expect(code).toBe(0);
        const info = JSON.parse(stdout);
        expect(info).toMatchObject({ architecture: "llama", quantization: "Q8_0", size_bytes: 220032 });
        expect(info.sha256).toBe("faad9f7608cef276e831f677eed4d7ef03ab399c40c39e6f1f4e7ba73abe99c1");
    });

    it("models inspect on a missing file prints one clear line and fails", async () => {
        const { code, stdout, stderr } = await eddy(["models", "inspect", "nowhere/missing.gguf"]);
        expect(code).toBe(1);
        expect(stdout).toBe("");
        expect(unwrapMessages(stderr).trim()).toMatch(/^eddy: model file not found: .*missing\.gguf \(put GGUF files in models\/ or pass --model <path>\)$/);
    });

    it("generate --json prints the response, the stats and the metadata, and warns about the missing chat template", async () => {
        const { code, stdout, stderr } = await eddy(["generate", "--model", tiny.f32, "--prompt", "Write add(a, b).", "--max-tokens", "8", "--threads", "1", "--json"]);
        expect(code).toBe(0);
        const out = JSON.parse(stdout);
        expect(out.result.stopReason).toBe("max_tokens");
        expect(out.result.generatedTokens).toBe(8);
        expect(out.result.text.startsWith("```python\n")).toBe(true);
        expect(out.metadata.promptFormat).toBe("plain-completion");
        expect(out.messages[0].role).toBe("system");
        expect(stderr).toMatch(/no chat template/);
    });

    it("generate --template asks an instance of a neighbourhood smaller than 100 tuples", async () => {
        // Three possible tuples: drawing a fixed 100 instances to pick one from would fail for every index.
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-generate-"));
        writeFileSync(
            path.join(dir, "pick_k.yaml"),
            ["id: pick_k", "function: pick_k", "arity: 1", "group: list", "subgroups: [indexing]", 'question: "Write `pick_k(values)` returning element {{k}} of the list."',
                "params:", "  k: {choice: [0, 1, 2]}", "edge: [[1]]"].join("\n") + "\n"
        );
        writeFileSync(
            path.join(dir, "pick_k.py"),
            ["def solution(values, *, k):", "    return values[k]", "def tests(*, k):", "    yield (list(range(5)),), k", "def inputs(rng, *, k):", "    return ([rng.randint(0, 9) for _ in range(5)],)"].join("\n") + "\n"
        );
        const env = { EDDY_TEMPLATES: dir, EDDY_ORACLES: dir };
        const { code, stdout, stderr } = await eddy(["generate", "--model", tiny.f32, "--template", "pick_k", "--instance", "2", "--max-tokens", "4", "--threads", "1", "--json"], env);
        expect(stderr).not.toMatch(/distinct valid tuples/);
        expect(code).toBe(0);
        const out = JSON.parse(stdout);
        // seed 1 orders the neighbourhood (1), (0), (2): the edge tuple first, then the seeded draws
        expect(out.result.generatedTokens).toBe(4);
        expect(out.messages.at(-1).content).toMatch(/element 2 of the list/);
    });
});
