import type { ChatMessage } from "../vocabulary.js";

/**
 * The plain completion prompt, as text: the same for every backend that completes text (the llama backend
 * tokenizes it; a served model is sent it), so the two can be compared answer for answer.
 */

/** Opening cue of the plain completion prompt: base models continue a code block instead of chatting. */
export const PLAIN_CUE = "```python\n";
/** What ends a plain completion (the closing fence), put back after the answer it ended. */
export const PLAIN_STOP = "```";

/** System text and question, blank-line separated, then the cue. */
export function plainCompletionText(messages: readonly ChatMessage[]): string {
    const parts = messages.map((m) => m.content.trim()).filter((c) => c !== "");
    return parts.join("\n\n") + "\n\n" + PLAIN_CUE;
}

/** The messages' text only, joined by blank lines: no cue, no stop trigger (base-model text checks). */
export function rawCompletionText(messages: readonly ChatMessage[]): string {
    return messages.map((m) => m.content).filter((c) => c !== "").join("\n\n");
}
