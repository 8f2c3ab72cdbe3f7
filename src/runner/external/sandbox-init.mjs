// The first program inside a command agent's sandbox (plain JavaScript: it runs on the node
// binary alone, without the checkout's loader). The sandbox has a network of its own with only a
// loopback interface, so this opens the doors umpire allows and nothing else:
// - each forward listens on 127.0.0.1:<port> inside and tunnels to the same address outside (the
//   trial's CDP relay, a model endpoint on loopback);
// - an HTTP CONNECT proxy (HTTPS_PROXY) for the declared remote model endpoints.
// Every tunnel goes through the trial's one unix socket, where umpire decides what may pass.
// Then it says it is up (on the descriptor umpire gave it), runs the agent's command and exits with its status.
import { spawn } from "node:child_process";
import { closeSync, writeSync } from "node:fs";
import { createServer, connect } from "node:net";

const plan = JSON.parse(process.argv[2]);

/** Opens a tunnel to host:port through umpire's socket; resolves with the socket once umpire said ok. */
function tunnel(to) {
  return new Promise((resolve, reject) => {
    const socket = connect(plan.socket);
    let answer = "";
    const onData = (chunk) => {
      answer += chunk.toString("latin1");
      const end = answer.indexOf("\n");
      if (end < 0) return;
      socket.off("data", onData);
      if (answer.slice(0, end) !== "ok") {
        socket.destroy();
        reject(new Error(answer.slice(0, end)));
        return;
      }
      const rest = Buffer.from(answer.slice(end + 1), "latin1");
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(`${to}\n`);
  });
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

for (const forward of plan.forwards) {
  const server = createServer((inside) => {
    inside.pause();
    tunnel(forward.to).then(
      (outside) => {
        inside.pipe(outside).pipe(inside);
        inside.resume();
        inside.on("error", () => outside.destroy());
        outside.on("error", () => inside.destroy());
      },
      () => inside.destroy(),
    );
  });
  await listen(server, forward.port);
}

if (plan.proxyPort) {
  const proxy = createServer((inside) => {
    let head = "";
    const onData = (chunk) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 8192) inside.destroy();
        return;
      }
      inside.off("data", onData);
      const match = /^CONNECT ([^\s]+) HTTP\/1\.[01]\r\n/.exec(head);
      if (!match) {
        inside.end("HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      tunnel(match[1]).then(
        (outside) => {
          inside.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          const rest = Buffer.from(head.slice(end + 4), "latin1");
          if (rest.length > 0) outside.write(rest);
          inside.pipe(outside).pipe(inside);
          inside.on("error", () => outside.destroy());
          outside.on("error", () => inside.destroy());
        },
        (error) => inside.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\numpire: ${error.message}\n`),
      );
    };
    inside.on("data", onData);
    inside.on("error", () => undefined);
  });
  await listen(proxy, plan.proxyPort);
}

// The sandbox is up: tell umpire before the agent's code runs (it never gets this descriptor), so
// a sandbox that could not start is told apart from an agent that crashed.
writeSync(plan.readyFd, "ready\n");
closeSync(plan.readyFd);

const child = spawn(plan.command[0], plan.command.slice(1), { cwd: plan.cwd, stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.once("error", (error) => {
  process.stderr.write(`could not start ${plan.command[0]}: ${error.message}\n`);
  process.exit(127);
});
child.once("exit", (code, signal) => process.exit(code ?? (signal ? 128 + (signal === "SIGKILL" ? 9 : 15) : 1)));
