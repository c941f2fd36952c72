import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pageCsp, renderPage } from "../../src/report/page.js";
import { escapeHtml, html } from "../../src/report/safeHtml.js";
import { indent, renderPairs, renderTable } from "../../src/report/terminalTable.js";

describe("the report page shell", () => {
    it("states the policy once, escapes the title and runs no script by default", () => {
        const page = renderPage({ title: "a <b> & c", body: html`<main><p>${"<script>alert(1)</script>"}</p></main>`, css: ".x{color:red}" });
        expect(page.match(/http-equiv="Content-Security-Policy"/g)).toHaveLength(1);
        // The attribute holds the policy escaped as every attribute is (&#39; for the quotes).
        expect(page).toContain(`content="${escapeHtml("default-src 'none'; style-src 'unsafe-inline'; img-src data:")}"`);
        expect(page).toContain("<title>a &lt;b&gt; &amp; c</title>");
        expect(page).not.toMatch(/<script/i);
        expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
        // The feature's rules come after the shared sheet, inside the one <style>.
        expect(page.match(/<style>/g)).toHaveLength(1);
        expect(page.indexOf(".x{color:red}")).toBeGreaterThan(page.indexOf("body{margin:0"));
        expect(page.startsWith("<!doctype html>")).toBe(true);
        expect(page.trimEnd().endsWith("</body></html>")).toBe(true);
    });

    it("allows one inline script by its hash only, never by 'unsafe-inline'", () => {
        const script = "document.body.dataset.ready='1'";
        const hash = createHash("sha256").update(script).digest("base64");
        const page = renderPage({ title: "t", body: "", script });
        expect(page.match(/<script>/g)).toHaveLength(1);
        expect(pageCsp(script)).toBe(`default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'`);
        expect(page).toContain(escapeHtml(`script-src 'sha256-${hash}'`));
        expect(pageCsp(script)).not.toContain("script-src 'unsafe-inline'");
        expect(() => renderPage({ title: "t", body: "", script: "x='</script><b>'" })).toThrow(/may not contain/);
    });
});

describe("the text table helper", () => {
    it("pads text left and numbers right, columns two spaces apart, widths from the widest cell", () => {
        // name: widest "alpha" (5); n: widest "12" (2), right-aligned.
        expect(renderTable(["name", "n"], [["alpha", 3], ["b", 12]], { width: 100 }).split("\n")).toEqual(["name    n", "─────  ──", "alpha   3", "b      12"]);
    });

    it("shortens the text column to fit the width and keeps numbers whole", () => {
        // 16 + 2 + 1 = 19 columns into 12: the text column gives 7, from 16 to 9 (its header too).
        expect(renderTable(["description", "n"], [["abcdefghijklmnop", 1]], { width: 12 }).split("\n")).toEqual(["descript…  n", "─────────  ─", "abcdefgh…  1"]);
        expect(renderTable(["description", "n"], [["abcdefghijklmnop", 1]], { width: 12, wide: true }).split("\n")[2]).toBe("abcdefghijklmnop  1");
    });

    it("aligns label–value pairs on the widest label and indents nested tables", () => {
        expect(renderPairs([["a", "1"], ["long label", "two words"], ["", "more"]], { indent: "  " })).toEqual(["  a          1", "  long label two words", "             more"]);
        expect(renderPairs([["bell\u0007", "x\ny"]])).toEqual(["bell\\x07 x y"]);
        expect(indent("a\nb")).toBe("  a\n  b");
    });
});
