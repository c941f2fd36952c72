import { helpSuite } from "./examples.js";

// Every `$ eddy …` line of the --help of quant, audit, import, loop and mutate (and their subcommands), but those
// README.md or a docs page runs.
helpSuite("studies", { examples: 20, ran: 10 });
