/**
 * `umpire serve-fixtures --port N [--control-port N] [--host H] [--control-host H]`: runs the
 * fixture website and its control API standalone until interrupted. Port 0 picks a free port; the
 * bound URLs and the control token are printed so a separate runner or a person can use them.
 * `--host` moves only the site: the control API stays on 127.0.0.1 unless `--control-host` says
 * otherwise, so sharing the site with a remote browser never shares the session controls.
 */
import { startFixtureSite } from "../../../fixtures-site/index.js";
import { UmpireError } from "../../errors.js";
import { parseCommandArgs } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { untilAborted, type Command } from "../io.js";

const USAGE = `usage: umpire serve-fixtures [--port N] [--control-port N] [--host H] [--control-host H]

  --port N           site port (default 0: a free port)
  --control-port N   control API port (default 0: a free port)
  --host H           interface the site listens on (default 127.0.0.1)
  --control-host H   interface the control API listens on (default 127.0.0.1, whatever --host is)

Runs until Ctrl-C. Control requests need the header x-umpire-control: <token>.
`;

function portOption(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new UmpireError("usage", `${flag}: '${value}' is not a port`, `Give ${flag} a number from 0 to 65535 (0 picks a free port).`);
  }
  return port;
}

export const run: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs("serve-fixtures", argv, {
    port: { type: "string" },
    "control-port": { type: "string" },
    host: { type: "string" },
    "control-host": { type: "string" },
  });
  if (positionals.length > 0) throw new UmpireError("usage", `serve-fixtures takes no arguments, got ${positionals.join(" ")}`, "umpire serve-fixtures --help lists the options");
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const port = portOption(values.port, "--port");
  const controlPort = portOption(values["control-port"], "--control-port");
  if (port !== 0 && port === controlPort) {
    throw new UmpireError("usage", "--port and --control-port are the same", "The control API needs its own port (its own origin); pick two different ports or 0.");
  }
  let site;
  try {
    site = await startFixtureSite({ port, controlPort, host: values.host ?? "127.0.0.1", controlHost: values["control-host"] ?? "127.0.0.1" });
  } catch (error) {
    throw new UmpireError("usage", `serve-fixtures: cannot listen: ${(error as Error).message}`, "Pick other ports (or 0 for free ones), or another --host / --control-host.");
  }
  io.stdout.write(
    `fixture site:  ${site.siteUrl}\ncontrol API:   ${site.controlUrl}\ncontrol token: ${site.controlToken}\n` +
      `(send it as the x-umpire-control header; Ctrl-C stops)\n`,
  );
  await untilAborted(io.signal);
  await site.close();
  io.stderr.write("fixture site stopped\n");
  return EXIT.ok;
};
