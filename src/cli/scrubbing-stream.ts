/**
 * A view of an output stream whose `write` removes registered secrets (src/safety/secrets.ts)
 * and escape sequences other than colours (src/safety/terminal.ts) from what passes through. Everything else (isTTY, columns, events) is the stream's own.
 */
import { scrub } from "../safety/secrets.js";
import { terminalSafe } from "../safety/terminal.js";

export function scrubbingStream<S extends NodeJS.WritableStream>(stream: S): S {
  return new Proxy(stream, {
    get(target, property, receiver) {
      if (property === "write") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean).call(
            target,
            typeof chunk === "string" ? clean(chunk) : Buffer.isBuffer(chunk) ? clean(chunk.toString("utf8")) : chunk,
            ...rest,
          );
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const clean = (text: string) => terminalSafe(scrub(text));
