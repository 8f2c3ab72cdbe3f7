/** umpire's version, read from package.json so a release changes it in one place. */
import { readFileSync } from "node:fs";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
