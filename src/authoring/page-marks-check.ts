/**
 * A custom check `umpire negatives` (and `umpire import`) adds, advisory, to a gold probe: it never
 * judges, it lists the controls of the page the gold left (the test ids and roles `umpire marks`
 * lists) into `<dir>/<trial id>.marks.json`, so a wrong-record mutation can aim at a control no task
 * declared: the other row's toggle, the other filter link.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CheckContext } from "../checks/custom-api.js";
import { pageControls } from "../targets/page-controls.js";
import type { MarkDecl } from "../task/target-decl.js";

/** A control of the page as a mark: its name, and its declaration unless a test id makes it a mark already. */
export interface PageMark {
  name: string;
  decl: MarkDecl | null;
}

export const pageMarks = {
  name: "page marks (umpire negatives)",
  confidence: "observed",
  async judge(ctx: CheckContext, options: { dir: string; testIdAttribute: string }) {
    const found: PageMark[] = [];
    if (ctx.page) {
      const controls = await pageControls(await ctx.page.current(), { testIdAttribute: options.testIdAttribute });
      for (const c of controls) {
        if (c.frame !== null || c.ambiguous) continue;
        const d = c.declaration;
        found.push({
          name: c.mark,
          decl:
            "testid" in d ? null : "role" in d ? { role: d.role, name: d.name, exact: true } : { selector: d.selector },
        });
      }
    }
    mkdirSync(options.dir, { recursive: true });
    writeFileSync(join(options.dir, `${ctx.trialId ?? "trial"}.marks.json`), JSON.stringify(found));
    return { pass: true, reason: `${found.length} controls on the page, written down for the mutations`, evidence: {} };
  },
};
