import { examplesSuite } from "./examples.js";

// README.md's shell blocks in order (the walkthrough a new user follows), then every `$ eddy …` line of every command's --help.
examplesSuite();
