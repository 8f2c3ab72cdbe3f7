/**
 * Types for the `ws` library as Playwright's bundle exports it (`playwright-core/lib/utilsBundle`);
 * only the parts src/runner/trial-browser.ts uses.
 */
declare module "playwright-core/lib/utilsBundle" {
  import type { EventEmitter } from "node:events";
  import type { IncomingMessage } from "node:http";
  interface BundledWebSocket extends EventEmitter {
    readonly readyState: number;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
  }
  interface BundledWebSocketServer extends EventEmitter {
    readonly clients: Set<BundledWebSocket>;
    address(): { port: number } | string | null;
    close(callback?: () => void): void;
    on(event: "connection", listener: (socket: BundledWebSocket, request: IncomingMessage) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }
  export const ws: { new (url: string): BundledWebSocket };
  export const wsServer: { new (options: { host: string; port: number }): BundledWebSocketServer };
}
