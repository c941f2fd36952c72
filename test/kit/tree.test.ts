import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { engineMinimum } from "../../src/kit/buildKit.js";
import { allows, parsePlatforms } from "../../src/kit/platforms.js";
import { llamaPlatformsInLock, productionPackages, pruned, readLockfile } from "../../src/kit/productionTree.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const OFFER = ["linux-arm64", "linux-armv7l", "linux-x64", "linux-x64-cuda", "linux-x64-cuda-ext", "linux-x64-vulkan"];

describe("kit platforms", () => {
    it("always carries the plain CPU build first and names the kit after the set", () => {
        expect(parsePlatforms("linux-x64", OFFER)).toEqual({ os: "linux", arch: "x64", llamaPlatforms: ["linux-x64"], label: "linux-x64" });
        expect(parsePlatforms("linux-x64-cuda,linux-x64-vulkan", OFFER)).toEqual({
            os: "linux",
            arch: "x64",
            llamaPlatforms: ["linux-x64", "linux-x64-cuda", "linux-x64-vulkan"],
            label: "linux-x64+cuda+vulkan"
        });
        expect(parsePlatforms("linux-armv7l", OFFER).arch).toBe("arm");
    });

    it("refuses unknown platforms and mixed machines", () => {
        expect(() => parsePlatforms("win-x64", OFFER)).toThrow(/unknown platform "win-x64"; .*linux-x64-cuda/);
        expect(() => parsePlatforms("linux-x64,linux-arm64", OFFER)).toThrow(/different machines/);
        expect(() => parsePlatforms(" , ", OFFER)).toThrow(/empty/);
    });

    it("reads npm's os/cpu lists, negations included", () => {
        expect(allows(undefined, "linux")).toBe(true);
        expect(allows(["linux"], "linux")).toBe(true);
        expect(allows(["darwin", "win32"], "linux")).toBe(false);
        expect(allows(["!win32"], "linux")).toBe(true);
        expect(allows(["!linux"], "linux")).toBe(false);
    });

    it("takes the minimum Node from engines", () => {
        expect(engineMinimum(">=20")).toBe("20.0.0");
        expect(engineMinimum(">= 20.6.1")).toBe("20.6.1");
        expect(engineMinimum("^22.3")).toBe("22.3.0");
        expect(() => engineMinimum(undefined)).toThrow(/engines\.node/);
    });
});

describe("kit production tree", () => {
    const lock = readLockfile(root);

    it("holds the locked production dependencies for the target, without dev dependencies or other builds", () => {
        const offer = llamaPlatformsInLock(lock);
        expect(offer).toContain("linux-x64");
        const cpu = productionPackages(root, lock, parsePlatforms("linux-x64", offer)).map((p) => p.dir);
        expect(cpu).toContain("node_modules/better-sqlite3");
        expect(cpu).toContain("node_modules/node-llama-cpp");
        expect(cpu).toContain("node_modules/@node-llama-cpp/linux-x64");
        expect(cpu).not.toContain("node_modules/@node-llama-cpp/linux-x64-cuda");
        expect(cpu).not.toContain("node_modules/@node-llama-cpp/linux-arm64");
        for (const dev of ["vitest", "typescript", "pyright", "playwright-core"]) expect(cpu).not.toContain(`node_modules/${dev}`);
        const cuda = productionPackages(root, lock, parsePlatforms("linux-x64-cuda", offer)).map((p) => p.dir);
        expect(cuda).toContain("node_modules/@node-llama-cpp/linux-x64-cuda");
        expect(cuda).toContain("node_modules/@node-llama-cpp/linux-x64");
    });

    it("prunes other platforms' binaries, build intermediates and source maps, and keeps what runs", () => {
        const t = parsePlatforms("linux-x64", OFFER);
        expect(pruned("onnxruntime-node", "bin/napi-v6/darwin", t)).toBe(true);
        expect(pruned("onnxruntime-node", "bin/napi-v6/win32/x64/onnxruntime.dll", t)).toBe(true);
        expect(pruned("onnxruntime-node", "bin/napi-v6/linux/arm64", t)).toBe(true);
        expect(pruned("onnxruntime-node", "bin/napi-v6/linux", t)).toBe(false);
        expect(pruned("onnxruntime-node", "bin/napi-v6/linux/x64/libonnxruntime.so.1", t)).toBe(false);
        expect(pruned("better-sqlite3", "build/Release/better_sqlite3.node", t)).toBe(false);
        expect(pruned("better-sqlite3", "build/Release/obj.target", t)).toBe(true);
        expect(pruned("better-sqlite3", "deps/sqlite3/sqlite3.c", t)).toBe(false);
        expect(pruned("node-llama-cpp", "llama/gitRelease.bundle", t)).toBe(true);
        expect(pruned("node-llama-cpp", "dist/index.js", t)).toBe(false);
        expect(pruned("vega", "build/vega.js.map", t)).toBe(true);
        expect(pruned("bullmq", "node_modules/.bin/semver", t)).toBe(true);
    });
});
