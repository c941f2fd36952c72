import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A real llama-server for the server backend's tests and benchmark: the binary scripts/build-llama-tools.sh
 * builds (with llama-quantize and llama-imatrix) from node-llama-cpp's bundled llama.cpp source (the release the llama backend runs), started on a
 * loopback port with explicit thread and slot counts, stopped after.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The llama.cpp release node-llama-cpp's binaries (and so the built server) come from. */
export function llamaCppRelease(): string {
    const file = path.join(ROOT, "node_modules/node-llama-cpp/llama/binariesGithubRelease.json");
    return String((JSON.parse(readFileSync(file, "utf8")) as { release: unknown }).release);
}

/** Where the build script puts the binary (keep in step with scripts/build-llama-tools.sh). */
export function llamaServerPath(env: NodeJS.ProcessEnv = process.env): string {
    const cache = env.EDDY_LLAMA_TOOLS_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eddy", "llama-tools");
    return path.join(cache, llamaCppRelease(), "llama-server");
}

/**
 * The binary, or why there is none. Under CI it must be there (.ci/run builds it): a missing binary is a
 * failure there, never a silent skip.
 */
export function llamaServerBinary(): { path: string } | { missing: string } {
    const p = llamaServerPath();
    if (existsSync(p)) return { path: p };
    const why = `no llama-server at ${p}: run scripts/build-llama-tools.sh (it builds the bundled llama.cpp ${llamaCppRelease()} once, minutes on 2 cores)`;
    if (process.env.CI === "true") throw new Error(`${why}; CI must build it (.ci/run does)`);
    return { missing: why };
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.once("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const port = (s.address() as net.AddressInfo).port;
            s.close(() => resolve(port));
        });
    });
}

export interface LlamaServerOptions {
    model: string;
    port?: number;
    /** --parallel: slots decoded together (1: one request at a time, reproducible). */
    slots?: number;
    threads?: number;
    contextSize?: number;
    alias?: string;
}

export interface RunningServer {
    port: number;
    /** The OpenAI-compatible base URL (…/v1). */
    baseUrl: string;
    process: ChildProcess;
    /** Its output so far (for a failing test's message). */
    log(): string;
    /** Stop it (SIGTERM, then SIGKILL). */
    stop(): Promise<void>;
    /** kill -9: no goodbye, connections cut. */
    kill9(): Promise<void>;
}

/** Start llama-server and wait until /health answers 200 (the model loaded). */
export async function startLlamaServer(binary: string, o: LlamaServerOptions): Promise<RunningServer> {
    const port = o.port ?? (await freePort());
    const args = [
        "-m", o.model,
        "--host", "127.0.0.1",
        "--port", String(port),
        "-t", String(o.threads ?? 1),
        "-tb", String(o.threads ?? 1),
        "--parallel", String(o.slots ?? 1),
        "-c", String((o.contextSize ?? 1024) * (o.slots ?? 1)),
        "--no-webui",
        "--no-warmup",
        ...(o.alias ? ["--alias", o.alias] : [])
    ];
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const keep = (b: Buffer): void => {
        out = (out + b.toString()).slice(-20_000);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const server: RunningServer = {
        port,
        baseUrl: `http://127.0.0.1:${port}/v1`,
        process: child,
        log: () => out,
        async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill("SIGTERM");
            const t = setTimeout(() => child.kill("SIGKILL"), 5000);
            await exited;
            clearTimeout(t);
        },
        async kill9() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill("SIGKILL");
            await exited;
        }
    };
    const deadline = Date.now() + 60_000;
    for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`llama-server exited before it was ready:\n${out.slice(-3000)}`);
        try {
            const r = await fetch(`http://127.0.0.1:${port}/health`);
            if (r.status === 200) return server;
        } catch {
            // not listening yet
        }
        if (Date.now() > deadline) {
            await server.stop();
            throw new Error(`llama-server did not become ready within 60 s:\n${out.slice(-3000)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
    }
}
