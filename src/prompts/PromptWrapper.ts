import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { ChatMessage } from "../vocabulary.js";
import { EddyError } from "../util/errors.js";
import { packageRoot } from "../util/paths.js";

/** How a template's question is put to a model: data, not code (`src/prompts/wrappers/<id>.yaml`). */
export interface PromptWrapper {
    /** Name recorded with every run. */
    id: string;
    /** One line saying what the wrapper is for. */
    description?: string;
    /** System prompt; empty means no system message. */
    system: string;
    /** User message; `{{question}}` is replaced by the question text. */
    user: string;
}

/** The wrapper a run uses unless told otherwise. */
export const DEFAULT_WRAPPER_ID = "default";

/** Folder of the built-in wrappers (kept in src/ so it ships with the package and needs no build step). */
export function wrappersDir(): string {
    return path.join(packageRoot(), "src", "prompts", "wrappers");
}

/** Ids of the built-in wrappers, sorted. */
export function listWrappers(): string[] {
    return readdirSync(wrappersDir())
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => f.slice(0, -".yaml".length))
        .sort();
}

/** A built-in wrapper by id, or a wrapper YAML file by path. */
export function loadWrapper(idOrPath: string): PromptWrapper {
    const isPath = idOrPath.includes("/") || idOrPath.includes("\\") || idOrPath.endsWith(".yaml") || idOrPath.endsWith(".yml");
    const file = isPath ? path.resolve(idOrPath) : path.join(wrappersDir(), `${idOrPath}.yaml`);
    if (!existsSync(file) || !statSync(file).isFile())
        throw new EddyError(`unknown prompt wrapper '${idOrPath}' (built-in: ${listWrappers().join(", ")}; or give a path to a .yaml file)`);
    let doc: unknown;
    try {
        doc = parse(readFileSync(file, "utf8"));
    } catch (err) {
        throw new EddyError(`prompt wrapper ${file}: not valid YAML (${(err as Error).message.split("\n")[0]})`);
    }
    const d = doc as Partial<PromptWrapper> | null;
    if (!d || typeof d !== "object") throw new EddyError(`prompt wrapper ${file}: expected a mapping with id, system, user`);
    if (typeof d.user !== "string" || !d.user.includes("{{question}}"))
        throw new EddyError(`prompt wrapper ${file}: 'user' must be text containing {{question}}`);
    if (d.system !== undefined && typeof d.system !== "string") throw new EddyError(`prompt wrapper ${file}: 'system' must be text`);
    return {
        id: typeof d.id === "string" ? d.id : path.basename(file).replace(/\.ya?ml$/, ""),
        ...(typeof d.description === "string" ? { description: d.description } : {}),
        system: d.system ?? "",
        user: d.user
    };
}

/** The chat messages for one question: the system message (when the wrapper has one), then the user message. */
export function renderMessages(w: PromptWrapper, question: string): ChatMessage[] {
    const messages: ChatMessage[] = [];
    if (w.system.trim() !== "") messages.push({ role: "system", content: w.system });
    messages.push({ role: "user", content: w.user.split("{{question}}").join(question) });
    return messages;
}
