import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import onnxProto from "onnx-proto";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { modelsDir } from "../util/paths.js";

const { onnx } = onnxProto;

/** Folder name of eddy's tiny sentence-embedding model under models/. */
export const TINY_EMBED_NAME = "eddy-tiny-embed";

/** Hidden size of the tiny model: small on purpose (it proves plumbing, not meaning). */
export const TINY_EMBED_HIDDEN = 32;

/** Files copied from a real BERT tokenizer folder when one is at hand. */
const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"] as const;

const NOTE =
    "eddy's tiny sentence-embedding model: a seeded random token-embedding lookup, no semantic value. " +
    "It proves that loading, tokenising, batching and mean pooling work; use a real model folder for real similarities.";

/** The default place of the tiny model: models/eddy-tiny-embed. */
export function tinyEmbedDir(): string {
    return path.join(modelsDir(), TINY_EMBED_NAME);
}

/** The BERT tokenizer folder to borrow (all-MiniLM-L6-v2 without weights), from EDDY_TEST_MODELS when set. */
export function sharedTokenizerDir(): string | undefined {
    const base = process.env.EDDY_TEST_MODELS;
    const dir = base ? path.join(base, "all-MiniLM-L6-v2-no-weights") : undefined;
    return dir && TOKENIZER_FILES.every((f) => existsSync(path.join(dir, f))) ? dir : undefined;
}

export interface TinyEmbedOptions {
    /** A BERT tokenizer folder whose files are copied (never committed); else eddy writes its own small WordPiece vocabulary. */
    tokenizerFrom?: string;
    hidden?: number;
    seed?: number;
}

/**
 * Write the tiny model folder in the Hugging Face layout transformers.js reads: config.json,
 * tokenizer files and onnx/model.onnx. The graph is a BERT-shaped stand-in:
 * last_hidden_state = (E_word[input_ids] + E_type[token_type_ids]) · attention_mask,
 * so the feature-extraction pipeline's own mean pooling and normalisation do the rest.
 * Returns the folder. Deterministic: the same options give the same bytes.
 */
export function writeTinyEmbedModel(dir: string, opts: TinyEmbedOptions = {}): string {
    const hidden = opts.hidden ?? TINY_EMBED_HIDDEN;
    mkdirSync(path.join(dir, "onnx"), { recursive: true });
    let vocabSize: number;
    if (opts.tokenizerFrom) {
        for (const f of TOKENIZER_FILES) copyFileSync(path.join(opts.tokenizerFrom, f), path.join(dir, f));
        vocabSize = readFileSync(path.join(dir, "vocab.txt"), "utf8").split("\n").filter((l) => l !== "").length;
    } else {
        vocabSize = writeOwnTokenizer(dir);
    }
    const config = {
        _eddy_note: NOTE,
        architectures: ["BertModel"],
        model_type: "bert",
        hidden_size: hidden,
        num_hidden_layers: 0,
        num_attention_heads: 1,
        intermediate_size: hidden,
        max_position_embeddings: 512,
        type_vocab_size: 2,
        pad_token_id: 0,
        vocab_size: vocabSize
    };
    writeAtomic(path.join(dir, "config.json"), JSON.stringify(config, null, 2) + "\n");
    writeAtomic(path.join(dir, "README.md"), `# ${TINY_EMBED_NAME}\n\n${NOTE}\n\nWritten by \`npm run models:tiny-embed\`.\n`);
    writeAtomic(path.join(dir, "onnx", "model.onnx"), tinyEmbedOnnx(vocabSize, hidden, opts.seed ?? 20240613));
    return dir;
}

/** The ONNX bytes of the lookup graph (opset 13). */
export function tinyEmbedOnnx(vocabSize: number, hidden: number, seed: number): Uint8Array {
    const rng = xoroshiro128plus(seed);
    const table = (rows: number, scale: number): Uint8Array => {
        const w = new Float32Array(rows * hidden);
        for (let i = 0; i < w.length; i++) w[i] = (uniformFloat64(rng) * 2 - 1) * scale;
        return new Uint8Array(w.buffer);
    };
    const F = onnx.TensorProto.DataType.FLOAT, I64 = onnx.TensorProto.DataType.INT64;
    const tokens = (name: string) => ({
        name,
        type: { tensorType: { elemType: I64, shape: { dim: [{ dimParam: "batch_size" }, { dimParam: "sequence_length" }] } } }
    });
    const graph: onnxProto.onnx.IGraphProto = {
        name: "eddy_tiny_embed",
        docString: NOTE,
        initializer: [
            { name: "word_embeddings", dataType: F, dims: [vocabSize, hidden], rawData: table(vocabSize, 1) },
            { name: "token_type_embeddings", dataType: F, dims: [2, hidden], rawData: table(2, 0.05) },
            { name: "last_axis", dataType: I64, dims: [1], int64Data: [-1] }
        ],
        input: [tokens("input_ids"), tokens("attention_mask"), tokens("token_type_ids")],
        output: [
            {
                name: "last_hidden_state",
                type: { tensorType: { elemType: F, shape: { dim: [{ dimParam: "batch_size" }, { dimParam: "sequence_length" }, { dimValue: hidden }] } } }
            }
        ],
        node: [
            { opType: "Gather", input: ["word_embeddings", "input_ids"], output: ["words"], name: "word_lookup", attribute: [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
            { opType: "Gather", input: ["token_type_embeddings", "token_type_ids"], output: ["types"], name: "type_lookup", attribute: [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
            { opType: "Add", input: ["words", "types"], output: ["summed"], name: "add" },
            { opType: "Cast", input: ["attention_mask"], output: ["mask_f"], name: "mask_cast", attribute: [{ name: "to", type: onnx.AttributeProto.AttributeType.INT, i: F }] },
            { opType: "Unsqueeze", input: ["mask_f", "last_axis"], output: ["mask_3d"], name: "mask_unsqueeze" },
            { opType: "Mul", input: ["summed", "mask_3d"], output: ["last_hidden_state"], name: "mask_padding" }
        ]
    };
    const model = onnx.ModelProto.create({
        irVersion: 7,
        producerName: "eddy",
        producerVersion: "1",
        docString: NOTE,
        opsetImport: [{ domain: "", version: 13 }],
        graph
    });
    return onnx.ModelProto.encode(model).finish();
}

// A small lower-case WordPiece vocabulary: enough for prompt wrappers and code summaries to
// tokenise into known pieces, with letters and ##letters so any ASCII word is covered.
const OWN_WORDS = (
    "a an the and or not of to in on for with by as is are be it this that from at into only one single " +
    "write python function code block answer question return returns define defines requested expert programmer " +
    "you your do does comments explanation explanations examples example no without please output format " +
    "system user task instruction instructions reply respond response text given list number numbers string strings " +
    "value values integer integers sum count first last all each every which when if else while loop"
).split(" ");

function writeOwnTokenizer(dir: string): number {
    const specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
    const chars = [..."abcdefghijklmnopqrstuvwxyz0123456789", ..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"];
    const vocab = [...new Set([...specials, ...chars, ...chars.filter((c) => /[a-z0-9]/.test(c)).map((c) => "##" + c), ...OWN_WORDS])];
    const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
    const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
    const tokenizer = {
        version: "1.0",
        truncation: null,
        padding: null,
        added_tokens: specials.map((s, i) => special(i, s)),
        normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
        pre_tokenizer: { type: "BertPreTokenizer" },
        post_processor: {
            type: "TemplateProcessing",
            single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
            pair: [
                { SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } },
                { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }
            ],
            special_tokens: { "[CLS]": { id: "[CLS]", ids: [ids["[CLS]"]], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [ids["[SEP]"]], tokens: ["[SEP]"] } }
        },
        decoder: { type: "WordPiece", prefix: "##", cleanup: true },
        model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab: ids }
    };
    writeAtomic(path.join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
    writeAtomic(path.join(dir, "vocab.txt"), vocab.join("\n") + "\n");
    writeAtomic(
        path.join(dir, "tokenizer_config.json"),
        JSON.stringify({ tokenizer_class: "BertTokenizer", do_lower_case: true, cls_token: "[CLS]", sep_token: "[SEP]", pad_token: "[PAD]", unk_token: "[UNK]", mask_token: "[MASK]", model_max_length: 512 }, null, 2) + "\n"
    );
    writeAtomic(path.join(dir, "special_tokens_map.json"), JSON.stringify({ cls_token: "[CLS]", mask_token: "[MASK]", pad_token: "[PAD]", sep_token: "[SEP]", unk_token: "[UNK]" }, null, 2) + "\n");
    return vocab.length;
}

// Never leave a half-written file where a loader may find it.
function writeAtomic(file: string, data: string | Uint8Array): void {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, file);
}

/**
 * `dir` itself; when it names eddy's tiny embedding model (a folder called eddy-tiny-embed) that is not
 * written yet, it is written first, as the tiny GGUF models are on demand: the README's examples then
 * run without `npm run models:tiny-embed` before them. Any other folder is left to the loader to judge.
 */
export function ensureTinyEmbedModel(dir: string): string {
    if (path.basename(path.resolve(dir)) !== TINY_EMBED_NAME || existsSync(path.join(dir, "onnx", "model.onnx"))) return dir;
    const from = sharedTokenizerDir();
    return writeTinyEmbedModel(dir, from ? { tokenizerFrom: from } : {});
}
