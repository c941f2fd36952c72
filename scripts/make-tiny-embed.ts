/**
 * `npm run models:tiny-embed`: write eddy's tiny sentence-embedding model (a seeded token-embedding
 * lookup in ONNX, no semantic value) into models/eddy-tiny-embed, or the folder given as the first
 * argument. With EDDY_TEST_MODELS set, the real all-MiniLM-L6-v2 WordPiece tokenizer files are
 * copied from there; otherwise eddy writes a small WordPiece vocabulary of its own.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { sharedTokenizerDir, tinyEmbedDir, writeTinyEmbedModel } from "../src/embed/tinyEmbedModel.js";

const dir = path.resolve(process.argv[2] ?? tinyEmbedDir());
const from = sharedTokenizerDir();
writeTinyEmbedModel(dir, from ? { tokenizerFrom: from } : {});
console.log(`${dir}  (tokenizer: ${from ? `copied from ${from}` : "eddy's own small WordPiece"})`);
for (const f of ["config.json", "tokenizer.json", "onnx/model.onnx"]) console.log(`  ${f.padEnd(16)} ${statSync(path.join(dir, f)).size} bytes`);
