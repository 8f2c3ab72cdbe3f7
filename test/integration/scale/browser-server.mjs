/**
 * A Playwright browser server in its own process, for the scale-out tests and the benchmark:
 * `node browser-server.mjs <chromium-path> [flag...]` launches Chromium with `launchServer` on a
 * free loopback port and prints one line, `{"wsEndpoint":"ws://127.0.0.1:PORT/..."}`, on stdout.
 * It runs until killed (SIGTERM closes the browser; SIGKILL is what the crash test uses).
 */
import { chromium } from "playwright";

const [executablePath, ...args] = process.argv.slice(2);
if (!executablePath) {
  process.stderr.write("usage: node browser-server.mjs <chromium-path> [chromium flags...]\n");
  process.exit(2);
}
const server = await chromium.launchServer({ executablePath, args, headless: true, host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint() })}\n`);
const stop = async () => {
  await server.close().catch(() => undefined);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
