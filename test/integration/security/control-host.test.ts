/**
 * `serve-fixtures --host 0.0.0.0` shares the site, never the control API: the control API stays on
 * 127.0.0.1 unless `--control-host` says otherwise. 127.0.0.2 is a loopback address that a socket
 * bound to 127.0.0.1 does not answer, while one bound to 0.0.0.0 does, so it tells the two apart
 * without leaving the machine.
 */
import { describe, expect, it } from "vitest";
import { startCli } from "../../support/cli.js";

const READY = /control token: \S+/;

async function status(url: string): Promise<number | "refused"> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status;
  } catch {
    return "refused";
  }
}

function ports(stdout: string): { site: number; control: number; controlUrl: string } {
  const site = /fixture site:\s+http:\/\/[^:]+:(\d+)/.exec(stdout)!;
  const control = /control API:\s+(http:\/\/[^:]+:(\d+))/.exec(stdout)!;
  return { site: Number(site[1]), control: Number(control[2]), controlUrl: control[1]! };
}

describe("serve-fixtures control API host", () => {
  it("--host 0.0.0.0 moves the site only; the control API stays on 127.0.0.1", async () => {
    const served = await startCli(["serve-fixtures", "--host", "0.0.0.0"], READY);
    try {
      const { site, control, controlUrl } = ports(served.stdout());
      expect(controlUrl).toBe(`http://127.0.0.1:${control}`);
      // The site answers on another loopback address: it really listens on every interface.
      expect(await status(`http://127.0.0.2:${site}/`)).not.toBe("refused");
      // The control API does not.
      expect(await status(`http://127.0.0.2:${control}/sessions`)).toBe("refused");
      // And still answers on 127.0.0.1 (401 without the token: it is there, and guarded).
      expect(await status(`http://127.0.0.1:${control}/sessions`)).toBe(401);
    } finally {
      await served.stop();
    }
  });

  it("--control-host exposes the control API on purpose", async () => {
    const served = await startCli(["serve-fixtures", "--host", "0.0.0.0", "--control-host", "0.0.0.0"], READY);
    try {
      const { control } = ports(served.stdout());
      expect(await status(`http://127.0.0.2:${control}/sessions`)).not.toBe("refused");
    } finally {
      await served.stop();
    }
  });
});
