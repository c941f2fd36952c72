import { markdownSuite } from "./examples.js";

// README.md's shell blocks in order: the walkthrough a new user follows (docs pages and --help texts run in files of their own).
markdownSuite("README.md: the walkthrough runs as written", () => ["README.md"], { examples: 10, ran: 10 });
