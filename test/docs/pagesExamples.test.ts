import { docPages, markdownSuite, MODEL_PAGES } from "./examples.js";

// Every page of docs/ but the model studies (modelPagesExamples.test.ts runs those beside this file), each a walkthrough of its own.
markdownSuite("docs/*.md: every page's examples run as written", () => docPages().filter((p) => !MODEL_PAGES.includes(p)), { examples: 20, ran: 20 });
