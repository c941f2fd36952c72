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
            // `_name` marks a deliberately unused binding (a callback's position, a destructured rest).
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true }]
        }
    }
);
