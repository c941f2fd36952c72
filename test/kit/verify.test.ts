import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { create } from "tar";
import { afterAll, describe, expect, it } from "vitest";
import { hashFiles, KIT_FORMAT, listFiles, MANIFEST_NAME, verifyDirectory, type KitManifest } from "../../src/kit/manifest.js";
import { verifyArchive } from "../../src/kit/verifyArchive.js";

const work = mkdtempSync(path.join(tmpdir(), "eddy-kit-verify-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A small kit folder with a manifest written the way `eddy kit` writes it, packed as `eddy kit` packs. */
async function smallKit(name: string, files: Record<string, string>): Promise<{ dir: string; archive: string }> {
    const stage = path.join(work, name);
    const dir = path.join(stage, "kit");
    for (const [f, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), text);
    }
    const listed = await hashFiles(dir, listFiles(dir));
    const manifest: KitManifest = {
        format: KIT_FORMAT,
        eddy: "0.0.0",
        created: "2026-01-01T00:00:00.000Z",
        target: { os: "linux", arch: "x64", llamaPlatforms: ["linux-x64"] },
        node: { version: "20.0.0", modules: "115", engines: ">=20", headers: false },
        pythonMin: "3.11",
        models: [],
        files: listed,
        bytes: listed.reduce((s, f) => s + f.size, 0)
    };
    writeFileSync(path.join(dir, MANIFEST_NAME), JSON.stringify(manifest));
    const archive = path.join(stage, "kit.tgz");
    await create({ file: archive, cwd: stage, gzip: true, portable: true }, ["kit"]);
    return { dir, archive };
}

const FILES = {
    "install.sh": "#!/bin/sh\necho install\n",
    "eddy/package.json": '{"name":"eddy"}\n',
    "eddy/dist/cli/bin.js": "console.log('eddy ' + 'x'.repeat(4000));\n".repeat(20)
};

describe("eddy kit verify", () => {
    it("accepts an intact kit, archived or extracted", async () => {
        const { dir, archive } = await smallKit("intact", FILES);
        const v = await verifyArchive(archive);
        expect(v.files).toBe(3);
        expect(v.manifest.eddy).toBe("0.0.0");
        expect((await verifyDirectory(dir)).problems).toEqual([]);
        await expect(verifyArchive(dir)).resolves.toMatchObject({ files: 3 });
    });

    it("refuses an archive with one byte changed, naming the file", async () => {
        const { archive } = await smallKit("onebyte", FILES);
        const tar = gunzipSync(readFileSync(archive));
        const at = tar.indexOf(Buffer.from('{"name":"eddy"}'));
        expect(at).toBeGreaterThan(0);
        tar[at + 3] = "N".charCodeAt(0); // "name" → "nNme": same size, other bytes
        const tampered = path.join(work, "onebyte.tgz");
        writeFileSync(tampered, gzipSync(tar));
        await expect(verifyArchive(tampered)).rejects.toThrow(/refused: eddy\/package\.json: sha256 differs/);
    });

    it("refuses a truncated archive", async () => {
        const { archive } = await smallKit("truncated", FILES);
        truncateSync(archive, Math.floor(statSync(archive).size / 2));
        await expect(verifyArchive(archive)).rejects.toThrow(/refused: .*truncated or corrupt/);
    });

    it("refuses an archive cut at a tar block boundary (the gzip stream still ends cleanly)", async () => {
        const { archive } = await smallKit("cut", FILES);
        const tar = gunzipSync(readFileSync(archive));
        const cut = path.join(work, "cut.tgz");
        // The first 1536 bytes: the manifest's header and data; every listed file is then missing.
        writeFileSync(cut, gzipSync(tar.subarray(0, 512 * 3)));
        await expect(verifyArchive(cut)).rejects.toThrow(/refused: /);
    });

    it("refuses a file added after the manifest was written, and a missing one", async () => {
        const { dir } = await smallKit("extra", FILES);
        writeFileSync(path.join(dir, "eddy", "evil.js"), "process.exit(0)\n");
        rmSync(path.join(dir, "install.sh"));
        const { problems } = await verifyDirectory(dir);
        expect(problems).toEqual([
            { path: "install.sh", problem: "missing" },
            { path: "eddy/evil.js", problem: "not in the manifest" }
        ]);
        await expect(verifyArchive(dir)).rejects.toThrow(/refused: install\.sh: missing \(and 1 more file\)/);
    });

    it("refuses what is not a kit", async () => {
        const stage = path.join(work, "notkit");
        mkdirSync(path.join(stage, "x"), { recursive: true });
        writeFileSync(path.join(stage, "x", "a.txt"), "a");
        const archive = path.join(stage, "x.tgz");
        await create({ file: archive, cwd: stage, gzip: true }, ["x"]);
        await expect(verifyArchive(archive)).rejects.toThrow(/no manifest\.json/);
        await expect(verifyArchive(path.join(work, "nope.tgz"))).rejects.toThrow(/not found/);
    });
});
