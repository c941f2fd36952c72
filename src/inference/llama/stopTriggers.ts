import { isLlamaText, type LlamaModel, type LlamaText, type Token } from "node-llama-cpp";

/**
 * The stop triggers of a prompt, for decoding driven token by token (lockstep groups), where
 * LlamaCompletion's own detector is not available (node-llama-cpp does not export it). A trigger of
 * plain text ends the answer where the text first shows it, whatever the tokens; a trigger holding
 * special tokens (a chat template's end-of-turn marker) ends it when the answer's tokens end with
 * them. The answer is the text before the trigger, as LlamaCompletion gives it.
 */
export class StopTriggers {
    private readonly texts: string[] = [];
    private readonly tokenRuns: Token[][] = [];

    constructor(
        private readonly model: LlamaModel,
        triggers: readonly (string | LlamaText)[]
    ) {
        for (const t of triggers) {
            if (!isLlamaText(t)) {
                if (t !== "") this.texts.push(t);
            } else if (t.values.every((v) => typeof v === "string")) {
                if (t.toString() !== "") this.texts.push(t.toString());
            } else {
                const tokens = t.tokenize(model.tokenizer);
                if (tokens.length > 0) this.tokenRuns.push(tokens);
            }
        }
    }

    /** The answer's text before the first trigger, or undefined while none has appeared. */
    find(tokens: readonly Token[]): string | undefined {
        for (const run of this.tokenRuns)
            if (run.length <= tokens.length && run.every((t, i) => tokens[tokens.length - run.length + i] === t))
                return this.model.detokenize(tokens.slice(0, tokens.length - run.length));
        if (this.texts.length === 0) return undefined;
        const text = this.model.detokenize([...tokens]);
        let at = -1;
        for (const t of this.texts) {
            const i = text.indexOf(t);
            if (i >= 0 && (at < 0 || i < at)) at = i;
        }
        return at < 0 ? undefined : text.slice(0, at);
    }
}
