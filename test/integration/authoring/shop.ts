/** The shop app (shop-app/) started as a user starts an app: its own server process on a free port. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "../../../src/targets/web-target.js";

export const SHOP_SERVER = join(import.meta.dirname, "serve-shop.mjs");

export interface Shop {
  url: string;
  stop(): Promise<void>;
}

export async function startShop(): Promise<Shop> {
  const port = await freePort();
  const child = spawn(process.execPath, [SHOP_SERVER], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  // Ready when it answers; a hang guard of 300 tries, not a timing assertion.
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${url}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill()),
      ),
  };
}
