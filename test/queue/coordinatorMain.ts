// A coordinator in its own process, so a test can SIGKILL it (eddy run has no --queue flag yet).
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runQueued } from "../../src/queue/coordinator.js";
import { parseQueueUrl } from "../../src/queue/queueUrl.js";

const [config, url] = process.argv.slice(2) as [string, string];
await runQueued(normalizeStudyConfig(JSON.parse(config)), parseQueueUrl(url));
