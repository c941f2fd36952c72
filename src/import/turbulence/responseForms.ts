import { parsePythonRepr, PyReprError, type PyCall, type PyValue } from "./pythonRepr.js";

/**
 * The forms a Turbulence `response.txt` / `response.json` takes in the published repositories
 * (ShahinHonarvar/Turbulence-Benchmark and -v2). Turbulence writes `str(response)` of whatever its
 * client library returned, so the file is a printed SDK object, not the model's text:
 *
 * - `openai`: the OpenAI SDK's `ChatCompletion(id=…, choices=[Choice(…, message=ChatCompletionMessage(content='…', …))], …)`
 *   (v2: Gemma_2_27B_T_0, served through an OpenAI-compatible API);
 * - `anthropic`: Anthropic's `Message(id=…, content=[TextBlock(text="…", type='text')], …)` (v2: Claude_3_5_Haiku_T_0, Claude_3_5_Sonnet_T_0);
 * - `mistral`: mistralai's pydantic str(), `id='…' object='chat.completion' … choices=[ChatCompletionChoice(index=0, message=AssistantMessage(content='…', …), …)]` (v2: Codestral_T_0);
 * - `cohere`: Cohere's `[cohere.Generation {\n\tid: …\n\ttext: <raw text>\n\tlikelihood: …}]` (v1: Command_T_0);
 * - `json`: a chat-completion JSON object, `choices[0].message.content` (v1 `response.json`);
 * - `text`: the model's text itself (v1: CodeLlama13_T_0).
 *
 * Any other printed object whose message holds `content='…'` (a `…Message(content=…)` call) is read
 * the same way and named after its outer call. A file that looks like a printed object but holds no
 * message text is in no known form: it is reported, never judged as if it were the model's answer.
 */
export type ResponseForm = "openai" | "anthropic" | "mistral" | "cohere" | "json" | "text" | `object:${string}` | "unknown";

export interface DecodedResponse {
    /** The model's message; null when the file is in no known form. */
    text: string | null;
    form: ResponseForm;
    /** Why the text is null or empty, in one line. */
    detail?: string;
}

const isCall = (v: PyValue | undefined, name?: string): v is PyCall =>
    typeof v === "object" && v !== null && !Array.isArray(v) && v.kind === "call" && (name === undefined || v.name === name);

/** The message text of a printed chat-completion object: choices[0].message.content. */
function choiceContent(choices: PyValue | undefined): PyValue | undefined {
    const first = Array.isArray(choices) ? choices[0] : undefined;
    return isCall(first) && isCall(first.kwargs.message) ? first.kwargs.message.kwargs.content : undefined;
}

/** The first `…Message(content=<string>)` anywhere in the tree (depth first, in print order). */
function anyMessageContent(v: PyValue): string | undefined {
    if (Array.isArray(v)) {
        for (const x of v) {
            const hit = anyMessageContent(x);
            if (hit !== undefined) return hit;
        }
        return undefined;
    }
    if (!isCall(v)) return undefined;
    if (/Message$/.test(v.name) && typeof v.kwargs.content === "string") return v.kwargs.content;
    for (const x of [...v.args, ...Object.values(v.kwargs)]) {
        const hit = anyMessageContent(x);
        if (hit !== undefined) return hit;
    }
    return undefined;
}

function fromContent(content: PyValue | undefined, form: ResponseForm, what: string): DecodedResponse | undefined {
    if (typeof content === "string") return { text: content, form };
    // A message without text (a refusal, tool calls only): an empty answer, which the judge rejects.
    if (content === null) return { text: "", form, detail: `the printed ${what} has no message text (content=None)` };
    return undefined;
}

function fromPrinted(tree: PyValue): DecodedResponse | undefined {
    const top = Array.isArray(tree) && tree.length === 1 ? tree[0]! : tree;
    if (isCall(top, "ChatCompletion")) return fromContent(choiceContent(top.kwargs.choices), "openai", "ChatCompletion");
    if (isCall(top, "Message") && Array.isArray(top.kwargs.content)) {
        const blocks = top.kwargs.content.filter((b): b is PyCall => isCall(b, "TextBlock"));
        if (blocks.length && blocks.every((b) => typeof b.kwargs.text === "string")) return { text: blocks.map((b) => b.kwargs.text as string).join(""), form: "anthropic" };
        if (top.kwargs.content.length === 0) return { text: "", form: "anthropic", detail: "the printed Message has no content blocks" };
        return undefined;
    }
    if (isCall(top, "") && top.kwargs.object === "chat.completion") return fromContent(choiceContent(top.kwargs.choices), "mistral", "chat completion");
    const generic = anyMessageContent(top);
    if (generic !== undefined) return { text: generic, form: `object:${isCall(top) && top.name ? top.name : "fields"}` };
    return undefined;
}

const COHERE = /^\s*\[?\s*cohere\.Generations?\s*\{/;

/** Cohere's printed Generation: the text runs raw (unescaped) from `text: ` to the `likelihood:` field line. */
function fromCohere(raw: string): DecodedResponse {
    const start = raw.indexOf("\ttext:");
    const end = raw.lastIndexOf("\n\tlikelihood:");
    if (start < 0 || end < start) return { text: null, form: "unknown", detail: "a printed cohere.Generation without its text: and likelihood: fields" };
    return { text: raw.slice(start + "\ttext:".length, end).replace(/^ /, ""), form: "cohere" };
}

function fromJson(raw: string): DecodedResponse | undefined {
    let o: unknown;
    try {
        o = JSON.parse(raw);
    } catch {
        return undefined;
    }
    const content = (o as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
    if (typeof content === "string") return { text: content, form: "json" };
    if (content === null) return { text: "", form: "json", detail: "the JSON response has no message text (content: null)" };
    return { text: null, form: "unknown", detail: "a JSON response without choices[0].message.content" };
}

/** Starts like a printed object: `Name(`, `[Name(`, `pkg.Name {` or pydantic's `key='…'`. */
const PRINTED = /^\s*(?:\[\s*)?(?:[A-Za-z_][\w.]*\s*[({]|[A-Za-z_]\w*=['"\d[(A-Za-z])/;

/**
 * The model's text from a published response file (`response.txt` or `response.json`). Printed
 * objects are read with a Python literal reader, never evaluated.
 */
export function decodeResponse(raw: string, file = "response.txt"): DecodedResponse {
    if (file.endsWith(".json") || /^\s*\{\s*"/.test(raw)) {
        const j = fromJson(raw);
        if (j) return j;
    }
    if (COHERE.test(raw)) return fromCohere(raw);
    if (!PRINTED.test(raw)) return { text: raw, form: "text" };
    let tree: PyValue;
    try {
        tree = parsePythonRepr(raw);
    } catch (err) {
        // Prose that happens to start like a call ("Sure(ly) …") is the model's own text.
        if (err instanceof PyReprError && !/^\s*(?:\[\s*)?[A-Z]\w*\(\w+=/.test(raw) && !/^\s*[a-z_]\w*='/.test(raw)) return { text: raw, form: "text" };
        return { text: null, form: "unknown", detail: `${file} looks like a printed object but does not read as one (${(err as Error).message}); known forms: ${KNOWN_FORMS}` };
    }
    const decoded = fromPrinted(tree);
    if (decoded) return decoded;
    const head = raw.trim().slice(0, 40).replace(/\s+/g, " ");
    return { text: null, form: "unknown", detail: `${file} holds a printed object in no known form (starts ${JSON.stringify(head)}); known forms: ${KNOWN_FORMS}` };
}

const KNOWN_FORMS = "ChatCompletion(… ChatCompletionMessage(content=…)), Message(content=[TextBlock(text=…)]), pydantic `… choices=[ChatCompletionChoice(… AssistantMessage(content=…))]`, [cohere.Generation {… text: …}], chat-completion JSON, plain text";
