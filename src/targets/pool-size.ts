/**
 * `instances: auto`: as many copies of the app as the run can use at once, and as the machine's
 * free memory holds. Half the free memory is left for the browsers and umpire itself; each copy is
 * counted at what the first one used once ready (at least MIN_INSTANCE_BYTES, a guess of
 * GUESS_INSTANCE_BYTES where it cannot be read).
 */
import { freemem } from "node:os";
import { MAX_INSTANCES } from "../task/target-decl.js";

const MB = 1024 * 1024;
export const MIN_INSTANCE_BYTES = 64 * MB;
export const GUESS_INSTANCE_BYTES = 256 * MB;

export function autoInstances(
  concurrency: number,
  instanceBytes: number | undefined,
  freeBytes = freemem(),
): { size: number; sizedBy: string } {
  const per = Math.max(instanceBytes ?? GUESS_INSTANCE_BYTES, MIN_INSTANCE_BYTES);
  const byMemory = Math.max(1, Math.floor(freeBytes / 2 / per));
  const size = Math.max(1, Math.min(concurrency, byMemory, MAX_INSTANCES));
  const mb = (n: number) => `${Math.round(n / MB)} MB`;
  const measured = instanceBytes === undefined ? `${mb(per)} guessed` : `${mb(per)} measured`;
  return {
    size,
    sizedBy: `auto: concurrency ${concurrency}; half of ${mb(freeBytes)} free at ${measured} per instance holds ${byMemory}`,
  };
}
