// Verdict details come from code under test (exception texts, printed values): one cap, used by
// the judge pool for what it returns and by the store for everything it writes.

/**
 * The longest verdict detail stored (characters, i.e. UTF-16 code units). Details come from code under
 * test and can be megabytes; reports show a few lines of them. Every verdict and cached verdict written
 * through the store, and every verdict the judge pool returns, is cut to this by {@link capDetail}.
 */
export const MAX_DETAIL_CHARS = 2048;

/**
 * `detail` cut to at most {@link MAX_DETAIL_CHARS} characters, with a visible `…[truncated N chars]`
 * marker (N: how many characters were dropped) inside the cap; shorter details pass unchanged.
 * Never splits a surrogate pair.
 */
export function capDetail(detail: string, max: number = MAX_DETAIL_CHARS): string {
    if (detail.length <= max) return detail;
    // The marker's length depends on N, and N on the kept length: settle it in two passes (N's digits only shrink).
    let keep = max - marker(detail.length).length;
    keep = max - marker(detail.length - keep).length;
    if (keep < 0) return detail.slice(0, max); // a cap too small for any marker (not eddy's own)
    const code = detail.charCodeAt(keep - 1);
    if (keep > 0 && code >= 0xd800 && code <= 0xdbff) keep--; // do not keep half of a surrogate pair
    return detail.slice(0, keep) + marker(detail.length - keep);
}

const marker = (dropped: number): string => `…[truncated ${dropped} chars]`;
