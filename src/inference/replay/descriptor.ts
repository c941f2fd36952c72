import path from "node:path";
import type { BackendDescriptor } from "../descriptor.js";
import { ReplayBackend } from "./ReplayBackend.js";

/** Answers read from a JSONL file of responses produced elsewhere. */
export const replayDescriptor: BackendDescriptor = {
    name: "replay",
    decodes: false,
    needsSolutions: false,
    needsReplayFile: true,
    engine: "eddy replay",
    missing: (s) => (s.replay ? undefined : "--backend replay needs --replay <file.jsonl>"),
    models: (s) => [{ label: path.basename(s.replay ?? "replay").replace(/\.gguf$/i, "").replace(/\.jsonl?$/i, "") }],
    // The file's sha256 stands for the model's: an edited file is another set of answers.
    identity: (backend) => (backend instanceof ReplayBackend ? backend.sha256 : null),
    async open(_settings, _model, parts) {
        if (!parts.replay) throw new Error("the replay backend needs its file read first");
        return parts.replay;
    }
};
