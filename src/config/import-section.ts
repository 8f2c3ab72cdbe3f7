/**
 * `import:` in the config file: what `umpire import playwright` cannot read from a test by itself.
 * `requests` maps a network call a test awaited (`page.waitForResponse(...)`, `waitForRequest(...)`)
 * to the check that proves the app received it: an `effects` rule of the target's effects source, or
 * an `http` read-back of the app's API. The key is the URL pattern as the test wrote it, or, for a
 * predicate function, the wait's `file:line`; the draft of an unmapped call prints the exact line to add.
 */
import { z } from "zod";
import { EffectMatch, HttpCheck } from "../task/schema.js";

const HttpReadBack = HttpCheck.omit({ kind: true, name: true, required: true });

export const RequestMapping = z.union([
  z
    .object({
      effects: EffectMatch.describe(
        "An effect the target's effects source logs when the app handles the call (e.g. {type: item_saved})",
      ),
    })
    .strict(),
  z
    .object({
      http: HttpReadBack.describe(
        "An http check (method, url, headers, status, json, contains) that reads back what the call stored; " +
          "without contains or json, the body must contain each value the test typed",
      ),
    })
    .strict(),
]);
export type RequestMapping = z.output<typeof RequestMapping>;

export const ImportSection = z
  .object({
    requests: z
      .record(z.string().min(1), RequestMapping)
      .default({})
      .describe(
        "Awaited network calls as checks, keyed by the URL pattern as the test wrote it " +
          "(a string such as **/api/items, " +
          "or a RegExp literal such as /\\/api\\/items$/), or by file:line for a predicate",
      ),
  })
  .strict()
  .describe("How umpire import playwright turns what a test awaited into checks (docs/from-playwright.md)");
