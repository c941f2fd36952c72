import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's Chromium (installed by .ci/run); `EDDY_CHROMIUM` names another. */
export const CHROMIUM = process.env.EDDY_CHROMIUM ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless Chromium with the flags a closed network needs (no background fetches, no first-run work). */
export function launchChromium(): Promise<Browser> {
    return chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    });
}

/** Opens a report file and records console errors and every request other than the file itself (a report must fetch nothing). */
export async function openReport(browser: Browser, file: string, viewport = { width: 1360, height: 1000 }): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
        if (r.url() !== `file://${file}`) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForLoadState("load");
    return { page, errors, requests };
}
