/**
 * The machine's headroom, sampled for adaptive concurrency: the busy fraction of all cores since
 * the previous sample (from the kernel's per-core times) and the fraction of memory available.
 * The whole machine, not this process: Chromium's renderers and anything else running compete
 * for the same cores.
 */
import { availableParallelism, cpus, freemem, totalmem } from "node:os";

export interface MachineSample {
  cpuBusy: number;
  memoryAvailable: number;
  cores: number;
}

export type MachineSampler = () => MachineSample;

/** A sampler whose first call measures since its creation. */
export function createMachineSampler(): MachineSampler {
  let previous = cpuTimes();
  return () => {
    const now = cpuTimes();
    const total = now.total - previous.total;
    const idle = now.idle - previous.idle;
    previous = now;
    return {
      cpuBusy: total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0,
      memoryAvailable: totalmem() > 0 ? freemem() / totalmem() : 1,
      cores: availableParallelism(),
    };
  };
}

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}
