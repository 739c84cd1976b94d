import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: [".next/**", "node_modules/**", ".data/**", "db/migrations/**", "next-env.d.ts", "coverage/**", "test-results/**", "playwright-report/**"] },
  {
    rules: {
      // Unused names prefixed with _ are deliberate (table-driven tests, ignored tuple members).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
];

export default config;
