/**
 * A view of an output stream whose `write` removes registered secrets (src/safety/secrets.ts)
 * from what passes through. Everything else (isTTY, columns, events) is the stream's own.
 */
import { scrub } from "../safety/secrets.js";

export function scrubbingStream<S extends NodeJS.WritableStream>(stream: S): S {
  return new Proxy(stream, {
    get(target, property, receiver) {
      if (property === "write") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean).call(target, typeof chunk === "string" ? scrub(chunk) : Buffer.isBuffer(chunk) ? scrub(chunk.toString("utf8")) : chunk, ...rest);
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
