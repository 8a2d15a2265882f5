import { connect, createServer } from "node:net";
import { LocalDbError } from "./errors";

/** Listens on `port` for a moment: resolves with the bound port, rejects with EADDRINUSE etc. */
function tryListen(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port, host, exclusive: true }, () => {
      const addr = server.address();
      const bound = typeof addr === "object" && addr ? addr.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** Whether something accepts connections on host:port (within half a second). */
function answers(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** A port nobody listens on now (the system's choice, never 5432). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return tryListen(0, host);
}

/**
 * Whether host:port is taken. Binding alone is not enough: on macOS a server on 0.0.0.0 does not
 * stop a bind to 127.0.0.1, and the other server would then answer our health checks.
 */
export async function portInUse(port: number, host = "127.0.0.1"): Promise<boolean> {
  if (await answers(port, host)) return true;
  try {
    await tryListen(port, host);
    return false;
  } catch {
    return true;
  }
}

export async function assertPortFree(port: number, host = "127.0.0.1"): Promise<void> {
  if (await portInUse(port, host))
    throw new LocalDbError(`port ${port} on ${host} is already in use`);
}
