// eddy's TypeScript lint: ESLint's and typescript-eslint's recommended rules, for Node (ESM).
// `npm run lint` runs it with flake8 on the judge's Python (.flake8); .ci/run runs it before the tests.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
    { ignores: ["dist/**", "node_modules/**", "**/*.js.map", "test/**/fixtures/**/*.js", "src/judge/python/**"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        languageOptions: { globals: { ...globals.node } },
        rules: {
            // eddy matches control characters on purpose: it escapes them before they reach a terminal.
            "no-control-regex": "off",
            // `_name` marks a deliberately unused binding (a callback's position, a destructured rest).
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true }]
        }
    },
    // The reference backend's hand-written answers in other languages: each defines the function a
    // question asks for, which nothing in its own file calls.
    { files: ["oracles/translations/**/*.js"], rules: { "@typescript-eslint/no-unused-vars": "off" } },
    // An answer language's harness (src/languages/<name>/harness.js): a CommonJS script that node runs
    // in the judge's sandbox, beside nothing of eddy's package.
    { files: ["src/languages/*/harness.js"], languageOptions: { sourceType: "commonjs" }, rules: { "@typescript-eslint/no-require-imports": "off" } }
);
