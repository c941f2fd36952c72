import { describe, expect, it } from "vitest";
import { BACKEND_NAMES, backendDescriptor, createBackend, isBackendName } from "../../src/inference/backends.js";
import type { SolutionSource } from "../../src/inference/reference/ReferenceBackend.js";

describe("registered backend descriptors", () => {
    it("one table names every backend; an unknown name is one line", () => {
        expect(BACKEND_NAMES).toEqual(["llama", "reference", "replay", "server"]);
        expect(isBackendName("replay")).toBe(true);
        expect(isBackendName("toString")).toBe(false);
        expect(() => backendDescriptor("ollama")).toThrow(/^unknown backend 'ollama' \(use llama, reference, replay, server\)$/);
    });

    it("each says what it needs, as one line when it is missing", () => {
        expect(backendDescriptor("llama").missing({})).toMatch(/^no model given: pass --model/);
        expect(backendDescriptor("llama").missing({ models: ["a.gguf"] })).toBeUndefined();
        expect(backendDescriptor("replay").missing({})).toBe("--backend replay needs --replay <file.jsonl>");
        expect(backendDescriptor("reference").missing({})).toBeUndefined();
        expect(backendDescriptor("server").missing({ models: ["m"] })).toMatch(/^--backend server needs --base-url/);
        expect(backendDescriptor("server").missing({ models: ["m"], baseUrl: "http://127.0.0.1:1/v1" })).toBeUndefined();
        expect(BACKEND_NAMES.filter((n) => backendDescriptor(n).scheduling("reproducible") === "lockstep")).toEqual(["llama"]);
        expect(BACKEND_NAMES.filter((n) => backendDescriptor(n).scheduling("reproducible") === "remote")).toEqual(["server"]);
        expect(BACKEND_NAMES.map((n) => backendDescriptor(n).models)).toEqual(["file", "none", "none", "served"]);
        expect(BACKEND_NAMES.filter((n) => backendDescriptor(n).runsModel)).toEqual(["llama", "server"]);
        expect(BACKEND_NAMES.filter((n) => backendDescriptor(n).needsSolutions)).toEqual(["reference"]);
    });

    it("labels its answer sources: file stems, folders where stems collide, the file of a replay", () => {
        expect(backendDescriptor("llama").modelSources({ models: ["/m/a/q4.gguf", "/m/b/q4.gguf", "/m/c.GGUF"] })).toEqual([
            { path: "/m/a/q4.gguf", label: "a/q4" },
            { path: "/m/b/q4.gguf", label: "b/q4" },
            { path: "/m/c.GGUF", label: "c" }
        ]);
        expect(backendDescriptor("llama").modelSources({ models: ["/x/m/q.gguf", "/y/m/q.gguf"] }).map((m) => m.label)).toEqual(["/x/m/q.gguf", "/y/m/q.gguf"]);
        expect(backendDescriptor("replay").modelSources({ replay: "/d/answers.jsonl" })).toEqual([{ label: "answers", source: "/d/answers.jsonl" }]);
        expect(backendDescriptor("reference").modelSources({})).toEqual([{ label: "reference" }]);
        // A served model is a name, never a path: not made absolute, labelled by its file name where it is one.
        expect(backendDescriptor("server").resolveModel("qwen2.5-coder", "/work")).toBe("qwen2.5-coder");
        expect(backendDescriptor("server").modelSources({ models: ["/srv/m/tiny.gguf", "coder"] })).toEqual([
            { label: "tiny", name: "/srv/m/tiny.gguf" },
            { label: "coder", name: "coder" }
        ]);
    });

    it("a server's address is checked before anything is asked: http(s) only, no credentials, no query; the key comes from the environment", async () => {
        const { parseBaseUrl, apiKeyFromEnv } = await import("../../src/inference/server/http.js");
        expect(parseBaseUrl("http://127.0.0.1:8080/v1/").href).toBe("http://127.0.0.1:8080/v1");
        expect(() => parseBaseUrl("127.0.0.1:8080")).toThrow(/^--base-url .127.0.0.1:8080. is not a URL/);
        expect(() => parseBaseUrl("localhost:8080")).toThrow(/^--base-url must be http:\/\/ or https:\/\//);
        expect(() => parseBaseUrl("not a url")).toThrow(/^--base-url 'not a url' is not a URL/);
        expect(() => parseBaseUrl("http://user:sk-123@host/v1")).toThrow(/must not carry credentials; put the API key in EDDY_API_KEY/);
        expect(() => parseBaseUrl("http://host/v1?key=sk-123")).toThrow(/must not carry a query/);
        expect(apiKeyFromEnv({ OPENAI_API_KEY: "b", EDDY_API_KEY: "a" })).toBe("a");
        expect(apiKeyFromEnv({ OPENAI_API_KEY: "b" })).toBe("b");
        expect(apiKeyFromEnv({})).toBeUndefined();
        expect(() => backendDescriptor("server").checkSources({ backend: "server", models: ["m"], baseUrl: "ftp://x" })).toThrow(/http:\/\/ or https:\/\//);
    });

    it("the reference backend answers from the solution source it is handed (no judge needed)", async () => {
        const solutions: SolutionSource = { answerSource: async (t, b) => `def ${t.id}():\n    return ${JSON.stringify(b.n)}` };
        const template = { id: "f", params: [{ name: "n" }] } as unknown as Parameters<SolutionSource["answerSource"]>[0];
        const backend = await createBackend({ backend: "reference" }, {}, { solutions, templates: [template] });
        const out = [];
        for await (const r of backend.generate([{ id: "q", messages: [], decoding: { temperature: 0 }, seed: 1, maxTokens: 8, task: { templateId: "f", instance: 0, round: 0, params: [3] } }])) out.push(r);
        expect(out.map((r) => [r.stopReason, r.text])).toEqual([["eos", "```python\ndef f():\n    return 3\n```\n"]]);
        expect(backendDescriptor("reference").identity(backend, await backend.metadata())).toBeNull();
        await expect(createBackend({ backend: "reference" }, {}, {})).rejects.toThrow(/needs a solution source/);
    });
});
