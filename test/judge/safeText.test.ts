import { describe, expect, it } from "vitest";
import { safeTerminalLine, safeTerminalText } from "../../src/util/safeText.js";

describe("safeText (terminal output of untrusted text)", () => {
    it("escapes ESC sequences, carriage returns, C1 controls and bidi overrides; keeps printable text", () => {
        const hostile = "boom\x1b[2K\rpassed \u009b31m \u202eevil\u2066 é ✓";
        expect(safeTerminalText(hostile)).toBe("boom\\x1b[2K\\x0dpassed \\x9b31m \\u{202e}evil\\u{2066} é ✓");
        expect(safeTerminalText(hostile)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    });
    it("keeps line feeds and tabs in text, escapes them in one-line cells", () => {
        expect(safeTerminalText("a\n\tb")).toBe("a\n\tb");
        expect(safeTerminalLine("a\n\tb")).toBe("a\\n\\tb");
    });
});
