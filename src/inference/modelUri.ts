/** True for a model given as a URI (hf:, huggingface:, http(s):) rather than a local path: only fetched with allowDownload. */
export function isRemoteModel(model: string): boolean {
    return /^(hf:|huggingface:|https?:)/.test(model);
}
