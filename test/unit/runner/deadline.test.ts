/**
 * The trial's call deadline (src/runner/trial/deadline.ts) with real timers and short limits: a call
 * that never answers is abandoned past the limit plus grace, naming the innermost call in flight;
 * the user's stop shortens it to the cancel grace; a broken page fails calls at once; the
 * watchdog fires with what was in flight. Limits are tens of milliseconds; no assertion is on time.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { type StuckCall, TrialDeadline, isStuckCall, withDeadline } from "../../../src/runner/trial/deadline.js";

const never = <T = never>() => new Promise<T>(() => undefined);

async function rejection(work: Promise<unknown>): Promise<StuckCall> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStuckCall(error)) throw new Error(`expected a StuckCall, got ${String(error)}`);
  return error;
}

describe("withDeadline", () => {
  it("passes a result through and abandons work that never answers, naming it", async () => {
    await expect(withDeadline(Promise.resolve(7), 50, "a quick call")).resolves.toBe(7);
    const stuck = await rejection(withDeadline(never(), 20, "Page.captureScreenshot"));
    expect(stuck.what).toBe("Page.captureScreenshot");
    expect(stuck.message).toMatch(/^umpire was stuck: Page.captureScreenshot did not answer in [\d.]+ s/);
  });
});

describe("TrialDeadline", () => {
  it("abandons a call past the limit plus grace, naming the innermost call in flight", async () => {
    const deadline = new TrialDeadline(undefined, 20, 10);
    deadline.start(20);
    const inner = deadline.call("the capture", never());
    const outer = await rejection(deadline.around("observing the page", inner));
    expect(outer.what).toBe("the capture");
    expect(outer.waiter).toBe("umpire");
    expect(outer.why).toBe("limit");
    expect(outer.message).toMatch(/time limit of 0.02 s \+ 0.02 s grace/);
    expect((await rejection(inner)).what).toBe("the capture");
  });

  it("says when it was the agent that did not answer", async () => {
    const deadline = new TrialDeadline(undefined, 10, 10);
    deadline.start(10);
    const stuck = await rejection(deadline.call("the model's turn", never(), "agent"));
    expect(stuck.waiter).toBe("agent");
  });

  it("a call that answers in time is not touched, and an error of its own passes through", async () => {
    const deadline = new TrialDeadline(undefined, 1_000, 1_000);
    deadline.start(1_000);
    await expect(deadline.call("a read", Promise.resolve("ok"))).resolves.toBe("ok");
    await expect(deadline.call("a read", Promise.reject(new Error("page closed")))).rejects.toThrow("page closed");
  });

  it("the user's stop abandons a call after the cancel grace, long before the limit", async () => {
    const controller = new AbortController();
    const deadline = new TrialDeadline(controller.signal, 60_000, 20);
    deadline.start(60_000);
    const call = deadline.call("the click", never());
    controller.abort(new Error("cancelled by SIGTERM"));
    const stuck = await rejection(call);
    expect(stuck.why).toBe("cancelled");
    expect(deadline.cancelled).toBe(true);
    // After a stop the conclusion waits only briefly, never the normal allowance.
    expect(deadline.conclusionMs(60_000)).toBeLessThan(60_000);
  });

  it("a broken page fails the calls in flight and every later one at once", async () => {
    const deadline = new TrialDeadline(undefined, 60_000, 60_000);
    deadline.start(60_000);
    const call = deadline.call("reading the page", never());
    deadline.fail("the page's renderer crashed");
    const stuck = await rejection(call);
    expect(stuck.why).toBe("broken");
    expect(stuck.message).toBe("reading the page failed: the page's renderer crashed");
    expect((await rejection(deadline.call("the capture", never()))).message).toMatch(/renderer crashed/);
  });

  it("the watchdog fires past the deadline with the call in flight; it stays quiet while none is due", async () => {
    const deadline = new TrialDeadline(undefined, 10, 10);
    const quiet = deadline.watchdog();
    let fired = false;
    void quiet.expired.then(() => (fired = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(fired).toBe(false); // not started: no limit yet
    quiet.dispose();

    deadline.start(10);
    const watch = deadline.watchdog();
    // An unwrapped wait would hang; the watchdog still names what was tracked in flight.
    void deadline.call("the guard's page read", never()).catch(() => undefined);
    const expiry = await watch.expired;
    watch.dispose();
    expect(expiry.why).toBe("limit");
  });

  it("the watchdog names a step labelled with during when no tracked call is in flight, as untracked", async () => {
    const deadline = new TrialDeadline(undefined, 10, 10);
    deadline.start(10);
    const watch = deadline.watchdog();
    // A label is not a deadline: the hang it names is never abandoned by it.
    let settled = false;
    void deadline.during("executing click (action 1 of the trial)", never()).finally(() => (settled = true));
    const expiry = await watch.expired;
    watch.dispose();
    expect(settled).toBe(false);
    expect(expiry.stuck).toMatchObject({ what: "executing click (action 1 of the trial)", untracked: true });
  });

  it("a disposed deadline no longer listens on the run's signal, which outlives every trial (issue 42)", () => {
    const run = new AbortController();
    for (let trial = 0; trial < 20; trial++) new TrialDeadline(run.signal, 10, 10).dispose();
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    const live = new TrialDeadline(run.signal, 10, 10);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    run.abort();
    expect(live.cancelled).toBe(true);
  });
});
