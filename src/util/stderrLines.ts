/**
 * Where eddy's lines for stderr go: straight to stderr, or, while live progress bars are drawn on a terminal,
 * above them (src/run/progress.ts sets the writer), so that no note or warning is drawn over by the next frame.
 */
let above: ((s: string) => void) | undefined;

/** Lines for stderr go through `write` (above live bars) until it is cleared with `undefined`. */
export function setStderrLines(write: ((s: string) => void) | undefined): void {
    above = write;
}

/** Writes to stderr, above live bars when there are some. */
export function writeStderr(s: string): void {
    if (above) above(s);
    else process.stderr.write(s);
}
