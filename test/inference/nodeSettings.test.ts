import { describe, expect, it } from "vitest";
import { mixedNodesNote, withNode } from "../../src/inference/nodeSettings.js";

const shardA = { backend: "llama", llamaCppRelease: "b6000", gpu: "cuda", threads: 4, promptFormat: "plain-completion", model: { path: "/a/m.gguf" } };

describe("a configuration's metadata across the nodes that generated it", () => {
    it("records each node's result-changing settings and keeps the first shard's description", () => {
        const one = withNode(null, shardA, "a");
        expect(one).toEqual({ backend: "llama", llamaCppRelease: "b6000", gpu: "cuda", threads: 4, promptFormat: "plain-completion", model: { path: "/a/m.gguf" }, nodes: { a: { llamaCppRelease: "b6000", gpu: "cuda", threads: 4 } } });
        expect(mixedNodesNote(one)).toBeNull();
        // Same settings on a second node: recorded, nothing differs.
        const same = withNode(one, { ...shardA, model: { path: "/b/m.gguf" } }, "b");
        expect(same.model).toEqual({ path: "/a/m.gguf" });
        expect(Object.keys(same.nodes as object)).toEqual(["a", "b"]);
        expect(same.differ).toBeUndefined();
        expect(mixedNodesNote(same)).toBeNull();
    });

    it("names the settings that differ, each with every node's value", () => {
        const a = withNode(null, shardA, "a");
        const b = withNode(a, { ...shardA, llamaCppRelease: "b6100", gpu: false, threads: 4 }, "b");
        const c = withNode(b, { ...shardA, threads: 2 }, "c");
        expect(c.differ).toEqual(["llamaCppRelease", "gpu", "threads"]);
        expect(c.llamaCppRelease).toBe("b6000");
        expect(mixedNodesNote(c)).toBe(
            "generated on 3 nodes whose settings differ (llamaCppRelease b6000 on a, b6100 on b, b6000 on c; gpu cuda on a, false on b, cuda on c; threads 4 on a, 4 on b, 2 on c): answers are reproducible per node, not across them"
        );
    });

    it("a node storing a second shard replaces its own entry; a setting one node lacks differs", () => {
        const a = withNode(null, shardA, "a");
        const again = withNode(a, { ...shardA, threads: 8 }, "a");
        expect(again.nodes).toEqual({ a: { llamaCppRelease: "b6000", gpu: "cuda", threads: 8 } });
        expect(again.differ).toBeUndefined();
        const { gpu: _g, ...noGpu } = shardA;
        const b = withNode(a, noGpu, "b");
        expect(b.differ).toEqual(["gpu"]);
        expect(mixedNodesNote(b)).toContain("gpu cuda on a, unset on b");
    });

    it("the number of sequences decoded at once counts only in fast mode", () => {
        const a = withNode(null, { ...shardA, mode: "reproducible", sequences: 16 }, "a");
        const b = withNode(a, { ...shardA, mode: "reproducible", sequences: 8 }, "b");
        expect(b.differ).toBeUndefined();
        const fa = withNode(null, { ...shardA, mode: "fast", sequences: 16 }, "a");
        const fb = withNode(fa, { ...shardA, mode: "fast", sequences: 8 }, "b");
        expect(fb.differ).toEqual(["sequences"]);
    });

    it("a stored record from before (one `node` field) loses that field, not its description", () => {
        const old = { ...shardA, node: "w1" };
        const next = withNode(old, shardA, "w2");
        expect(next.node).toBeUndefined();
        expect(next.nodes).toEqual({ w2: { llamaCppRelease: "b6000", gpu: "cuda", threads: 4 } });
    });
});
