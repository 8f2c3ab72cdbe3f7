import { describe, expect, it } from "vitest";
import { processKind } from "../../scripts/bench/cpu-per-trial.js";

describe("the CPU bench's process kinds", () => {
  it("names each Chromium process by its --type, the network service apart, and umpire's node", () => {
    const shell = "/usr/lib/chromium/chromium-headless-shell";
    expect(processKind(`${shell} --type=renderer --lang=en-US`)).toBe("renderer");
    expect(processKind(`${shell} --type=gpu-process --use-angle=swiftshader-webgl`)).toBe("gpu");
    expect(processKind(`${shell} --type=utility --utility-sub-type=network.mojom.NetworkService`)).toBe(
      "network service",
    );
    expect(processKind(`${shell} --type=utility --utility-sub-type=storage.mojom.StorageService`)).toBe("utility");
    expect(processKind(`${shell} --type=zygote --no-zygote-sandbox`)).toBe("zygote");
    expect(processKind(`${shell} --headless --remote-debugging-pipe`)).toBe("browser");
    expect(processKind("/usr/bin/node bin/umpire.js run --json")).toBe("umpire (node)");
    expect(processKind("sh -c echo")).toBe("other");
  });
});
