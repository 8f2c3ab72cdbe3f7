/**
 * Where the reference model reads a trial's marks. The fixture's pages report their own layout to
 * its control API; on any other target the runner resolves the marks each time it observes and
 * posts them here, keyed by trial id (the model request's `user`). The sim reads through the same
 * LayoutSource shape either way, so grounding is one code path on every target.
 */
import type { ResolvedLayout } from "./marks.js";

export interface LayoutReader {
  layout(sessionId: string): Promise<unknown>;
  getSession?(sessionId: string): Promise<{ scenario?: string }>;
}

export class LayoutBoard {
  private readonly layouts = new Map<string, ResolvedLayout>();

  publish(trialId: string, layout: ResolvedLayout): void {
    this.layouts.set(trialId, layout);
  }

  get(trialId: string): ResolvedLayout | undefined {
    return this.layouts.get(trialId);
  }

  forget(trialId: string): void {
    this.layouts.delete(trialId);
  }

  /** A LayoutSource for the reference model: this board first, then the fixture's control API. */
  source(fixture?: LayoutReader): LayoutReader {
    return {
      layout: async (id) => this.layouts.get(id) ?? (fixture ? fixture.layout(id) : null),
      getSession: async (id) => (this.layouts.has(id) || !fixture?.getSession ? {} : fixture.getSession(id)),
    };
  }
}
