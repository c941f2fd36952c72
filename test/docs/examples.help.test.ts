import { examplesSuite } from "./examples.js";

// Every `$ eddy …` line of every command's --help, in the order the help tree lists them.
examplesSuite("help");
