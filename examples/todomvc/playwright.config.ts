// The TodoMVC example's own end-to-end tests, as a team would have them: Playwright Test with its
// webServer and baseURL. `npx umpire import playwright` (run in this folder) turns each test into
// a draft umpire task (docs/from-playwright.md). The app's element ids are its test ids.
import { defineConfig } from "@playwright/test";

const port = Number(process.env.TODOMVC_PORT ?? 4183);

export default defineConfig({
  testDir: "./playwright",
  // Inside results/, which git ignores (like umpire's own run folders).
  outputDir: "./results/playwright",
  workers: 1,
  reporter: "list",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    testIdAttribute: "id",
    launchOptions: process.env.UMPIRE_CHROMIUM ? { executablePath: process.env.UMPIRE_CHROMIUM } : {},
  },
  webServer: {
    command: "node serve.mjs",
    url: `http://127.0.0.1:${port}/index.html`,
    env: { PORT: String(port) },
    reuseExistingServer: false,
  },
});
