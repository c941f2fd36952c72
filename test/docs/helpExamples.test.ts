import { helpSuite } from "./examples.js";

// Every `$ eddy …` line of `eddy --help` and of every command's but the studies' (helpStudiesExamples.test.ts runs
// those beside this file), but those README.md or a docs page runs.
helpSuite("others", { examples: 40, ran: 15 });
