import type { Store } from "../store/Store.js";
import type { RunDataCache } from "./runData.js";

/** What a page is given: the read-only store, the run data cache, the request's URL and the route's captures. */
export interface PageContext {
    store: Store;
    runs: RunDataCache;
    url: URL;
    params: string[];
}

/** A page's answer: HTML (status 200 unless said) or a redirect. */
export type PageResult = { status?: number; html: string } | { redirect: string };

/** Thrown by a page for a run, template, configuration or answer that is not in the store: a 404 page. */
export class NotFound extends Error {}
