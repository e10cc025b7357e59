// ESLint (flat config): the recommended rules over every JS file of the book's own code;
// browser globals for the explorers and the site's scripts, node globals for the tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "_build/", ".venv/", "site/static/", "benchmarks/.work/"] },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
  },
];
