/**
 * A test-only fault (issue 37 §4): the one way to make a trial hang in a call no deadline covers.
 *
 * Every browser call of the loop runs under the trial's deadline (deadline.ts), so no page state
 * can hang a trial outside one; the watchdog is the backstop for a call someone forgets to wrap.
 * To prove that backstop end to end, `UMPIRE_TEST_FAULT=unwrapped-hang:<tool>` makes the executor
 * wait forever, before it performs that tool, in an await nothing tracks. Like the reference
 * model's fault profiles (`reference:<profile>`, src/sim/profiles.ts) it is named, opt-in and
 * inert unless set; it is read by test/integration/runner/watchdog.test.ts only. Never set it
 * outside a test: the trial it hits ends `error` at its time limit plus grace.
 */
const PREFIX = "unwrapped-hang:";

/** A promise that never settles when the fault names `tool`; otherwise undefined (nothing waits). */
export function unwrappedHang(tool: string, env: NodeJS.ProcessEnv = process.env): Promise<never> | undefined {
  const fault = env.UMPIRE_TEST_FAULT;
  if (!fault?.startsWith(PREFIX) || fault.slice(PREFIX.length) !== tool) return undefined;
  return new Promise<never>(() => undefined);
}
