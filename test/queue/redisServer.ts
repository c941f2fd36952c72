import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** Whether Debian's redis-server is installed (`.ci/run` installs it). */
export const HAS_REDIS = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** A free loopback port (closed again; redis-server takes it a moment later). */
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

/**
 * A throwaway Redis on a loopback port with a password, its data in a temp folder, nothing saved: started
 * again on the same port (`port`), it comes back empty, as a server without persistence does after a restart.
 */
export async function startRedis(password: string, port?: number): Promise<{ port: number; url: string; stop(): Promise<void>; signal(sig: NodeJS.Signals): void }> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-redis-"));
    port ??= await freePort();
    const proc: ChildProcess = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--requirepass", password, "--daemonize", "no"],
        { stdio: ["ignore", "pipe", "pipe"] }
    );
    let out = "";
    await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
        proc.stdout!.on("data", (d: Buffer) => {
            out += d.toString();
            if (/Ready to accept connections/.test(out)) {
                clearTimeout(t);
                resolve();
            }
        });
        proc.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
    return {
        port,
        url: `redis://:${password}@127.0.0.1:${port}`,
        /** SIGSTOP/SIGCONT (a Redis that hangs), SIGKILL (one that dies: then `stop` only waits). */
        signal: (sig) => void proc.kill(sig),
        stop: () =>
            new Promise<void>((resolve) => {
                const done = (): void => {
                    rmSync(dir, { recursive: true, force: true });
                    resolve();
                };
                if (proc.exitCode !== null || proc.signalCode !== null) return done();
                proc.once("exit", done);
                proc.kill("SIGCONT");
                proc.kill("SIGTERM");
            })
    };
}
