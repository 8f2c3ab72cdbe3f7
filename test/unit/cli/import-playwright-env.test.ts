/** The Playwright run `umpire import` starts is handed the Chromium umpire resolves, as UMPIRE_CHROMIUM. */
import { describe, expect, it } from "vitest";
import { locateChromium } from "../../../src/browser/chromium.js";
import { playwrightEnv } from "../../../src/cli/commands/import.js";
import { RECORDING_FILE_ENV } from "../../../src/importer/recording.js";

describe("import's Playwright environment", () => {
  it("names the Chromium umpire would launch when UMPIRE_CHROMIUM is not set, and keeps one that is", () => {
    const env = { PATH: process.env.PATH };
    const found = locateChromium(env);
    const given = playwrightEnv(env, "/tmp/rec.json");
    expect(given[RECORDING_FILE_ENV]).toBe("/tmp/rec.json");
    expect(given.UMPIRE_CHROMIUM).toBe(found?.path);
    expect(playwrightEnv({ ...env, UMPIRE_CHROMIUM: process.execPath }, "f").UMPIRE_CHROMIUM).toBe(process.execPath);
  });
});
