import { markdownSuite, MODEL_PAGES } from "./examples.js";

// The pages whose examples study eddy's tiny models (quantisation, loops and mutation), each a walkthrough of its own.
markdownSuite("docs/*.md: the model studies' examples run as written", () => MODEL_PAGES, { examples: 10, ran: 8 });
