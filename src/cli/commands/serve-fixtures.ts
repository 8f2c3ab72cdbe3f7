/**
 * `umpire serve-fixtures --port N [--control-port N] [--host H] [--control-host H]`: runs the
 * fixture website and its control API standalone until interrupted. Port 0 picks a free port; the
 * bound URLs and the control token are printed so a separate runner or a person can use them.
 * `--host` moves only the site: the control API stays on 127.0.0.1 unless `--control-host` says
 * otherwise, so sharing the site with a remote browser never shares the session controls.
 */
import { startFixtureSite } from "../../../fixtures-site/fixture-site.js";
import { UmpireError, messageOf } from "../../errors.js";
import type { ParsedCommand } from "../args.js";
import { OPTIONS as O } from "../../config/options.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { untilAborted, type CommandIO } from "../io.js";

const OPTIONS = {
  port: { ...O.port, help: "site port" },
  "control-port": { ...O.port, help: "control API port" },
  host: { kind: "string", arg: "H", default: "127.0.0.1", help: "interface the site listens on" },
  // Not --host's default: sharing the site with a remote browser must not share the session controls.
  "control-host": {
    kind: "string",
    arg: "H",
    default: "127.0.0.1",
    help: "interface the control API listens on (whatever --host is)",
  },
} as const;

export const run = defineCommand({
  name: "serve-fixtures",
  options: OPTIONS,
  positionals: [],
  description: "Serves the fixture website and its control API standalone.",
  epilogue: "Runs until Ctrl-C. Control requests need the header x-umpire-control: <token>.",
  run: execute,
});

async function execute({ values }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { port, "control-port": controlPort } = values;
  if (port !== 0 && port === controlPort) {
    throw new UmpireError(
      "usage",
      "--port and --control-port are the same",
      "The control API needs its own port (its own origin); pick two different ports or 0.",
    );
  }
  let site;
  try {
    site = await startFixtureSite({ port, controlPort, host: values.host, controlHost: values["control-host"] });
  } catch (error) {
    throw new UmpireError(
      "usage",
      `serve-fixtures: cannot listen: ${messageOf(error)}`,
      "Pick other ports (or 0 for free ones), or another --host / --control-host.",
    );
  }
  io.stdout.write(
    `fixture site:  ${site.siteUrl}\ncontrol API:   ${site.controlUrl}\ncontrol token: ${site.controlToken}\n` +
      `(send it as the x-umpire-control header; Ctrl-C stops)\n`,
  );
  await untilAborted(io.signal);
  await site.close();
  io.stderr.write("fixture site stopped\n");
  return EXIT.ok;
}
