// WebSocket-to-TCP relay in the shape of Neon's proxy: ws://HOST:PORT/v2?address=host:port.
// The driver's Pool/Client (neonConfig.wsProxy) speaks the Postgres wire protocol through it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import { connect, isIPv4, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { RawData, WebSocket, WebSocketServer as WebSocketServerClass } from "ws";
import { type Faults, onQueries, refusesConnections, stallsSessions } from "./faults";
import {
  GSSENC_REQUEST_CODE,
  MessageReader,
  PROTOCOL_3_0,
  SSL_REQUEST_CODE,
  startupMessage,
  startupParameters,
} from "./pg-wire";
import { IDLE_IN_TRANSACTION_OPTION } from "./session-settings";
import type { Stats } from "./stats";

// vitest's globalSetup resolves `ws` with browser conditions and gets its stub
// ("WebSocketServer is not a constructor"); require() always picks the Node build.
const { WebSocketServer } = createRequire(import.meta.url)("ws") as {
  WebSocketServer: typeof WebSocketServerClass;
};

export interface WsRelayOptions {
  port?: number;
  host?: string;
  stats: Stats;
  /** Faults set by tests through the HTTP endpoint's POST /__faults (see faults.ts). */
  faults?: Faults;
  /** Concurrent sessions to one database; further ones wait for a free slot (default 64). */
  maxSessionsPerTarget?: number;
  log?: (msg: string) => void;
  /**
   * A session to `target` was refused because the server is shutting down (57P03): a smart
   * shutdown (SIGTERM) waits for every open session, the SQL endpoint's pooled ones included,
   * which only learn of it when one of their own new sessions is refused.
   */
  onShuttingDown?: (target: { host: string; port: number }) => void;
}

export interface WsRelay {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** `address=host:port` of a loopback target, or null. The driver writes IPv6 hosts unbracketed. */
function parseTarget(url: string | undefined): { host: string; port: number } | null {
  const address = new URL(url ?? "/", "http://relay").searchParams.get("address");
  const colon = address?.lastIndexOf(":") ?? -1;
  if (!address || colon <= 0) return null;
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const port = Number(address.slice(colon + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return null;
  const loopback =
    host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."));
  return loopback ? { host, port } : null;
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return data;
}

/** The SQLSTATE field of an ErrorResponse refusing a session during a shutdown. */
const SHUTTING_DOWN = Buffer.from("C57P03\0", "latin1");

/**
 * Follows the client-to-server byte stream, and says what to pass on of each chunk:
 * - the StartupMessage gets IDLE_IN_TRANSACTION_OPTION added to its `options`, so that a relayed
 *   session idle in a transaction is ended by Postgres as the SQL endpoint's are (session-settings).
 *   Bytes are held back until the whole message is there;
 * - the Terminate message ('X'): the driver does not close its WebSocket after pool.end() (it sends
 *   Terminate and leaves the socket open), so the relay must end the session itself. Following the
 *   framing avoids mistaking 'X\0\0\0\x04' inside a parameter for a Terminate;
 * - the queries the chunk completes (a simple Query, or the Sync that ends an extended query),
 *   which is what fault injection counts and cuts at.
 * After an accepted SSLRequest the stream is TLS: stop following, pass everything on as it is.
 */
class ClientStream {
  private reader = new MessageReader({ untyped: true });
  private state: "startup" | "awaitSslAnswer" | "typed" | "opaque" = "startup";
  /** The server has answered the start-up message (fromServer looks at that answer only). */
  private answered = false;

  /** Feeds client bytes: what to pass on, whether a Terminate was seen, the queries completed. */
  fromClient(chunk: Buffer): { forward: Buffer; terminate: boolean; queries: number } {
    const seen = { forward: chunk, terminate: false, queries: 0 };
    if (this.state === "opaque" || this.state === "awaitSslAnswer") return seen;
    this.reader.push(chunk);
    if (this.state === "startup") {
      const { forward, typed } = this.startup();
      seen.forward = forward;
      if (!typed) return seen;
    }
    try {
      for (let m = this.reader.next(); m; m = this.reader.next()) {
        if (m.type === "X") return { ...seen, terminate: true };
        if (m.type === "Q" || m.type === "S") seen.queries++;
      }
    } catch {
      this.state = "opaque"; // not a Postgres stream we understand: just relay it
    }
    return seen;
  }

  /**
   * Feeds server bytes: the one-byte answer to an SSLRequest, and the first answer to the start-up
   * message. Whether that answer refuses the session because the server is shutting down (an
   * ErrorResponse with SQLSTATE 57P03).
   */
  fromServer(chunk: Buffer): { shuttingDown: boolean } {
    if (chunk.length === 0) return { shuttingDown: false };
    if (this.state === "awaitSslAnswer") {
      this.state = chunk[0] === 0x4e /* 'N' */ ? "startup" : "opaque";
      return { shuttingDown: false };
    }
    if (this.answered || this.state !== "typed") return { shuttingDown: false };
    this.answered = true;
    return { shuttingDown: chunk[0] === 0x45 /* 'E' */ && chunk.includes(SHUTTING_DOWN) };
  }

  /**
   * The start-up phase's bytes to pass on: nothing while its packet is incomplete; then the packet
   * (a StartupMessage with the option added) and every byte after it. Those stay in the reader
   * for the typed phase to follow.
   */
  private startup(): { forward: Buffer; typed: boolean } {
    let packet: Buffer | undefined;
    try {
      const m = this.reader.next();
      if (!m) return { forward: Buffer.alloc(0), typed: false };
      const code = m.bytes.length >= 8 ? m.bytes.readInt32BE(4) : 0;
      if (code === PROTOCOL_3_0) {
        const params = startupParameters(m.bytes);
        const options = [params.options, IDLE_IN_TRANSACTION_OPTION].filter(Boolean).join(" ");
        packet = startupMessage({ ...params, options });
        this.state = "typed";
      } else {
        packet = m.bytes;
        this.state =
          code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE ? "awaitSslAnswer" : "opaque";
      }
    } catch {
      this.state = "opaque";
    }
    const rest = this.reader.drain();
    const typed = this.state === "typed";
    if (typed) {
      this.reader.untyped = false;
      this.reader.push(rest);
    }
    return { forward: packet ? Buffer.concat([packet, rest]) : rest, typed };
  }
}

export async function startWsRelay(opts: WsRelayOptions): Promise<WsRelay> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  // Like Neon's pooler, sessions beyond the limit wait for a free one instead of failing: a plain
  // Postgres refuses connections past max_connections (53300) under a burst of transactions.
  const maxSessions = opts.maxSessionsPerTarget ?? 64;
  const active = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();

  function acquire(key: string, start: () => void): void {
    const count = active.get(key) ?? 0;
    if (count < maxSessions) {
      active.set(key, count + 1);
      start();
    } else {
      waiting.set(key, [...(waiting.get(key) ?? []), start]);
    }
  }

  function release(key: string): void {
    const next = waiting.get(key)?.shift();
    if (next)
      next(); // the slot passes straight to the next waiting session
    else active.set(key, (active.get(key) ?? 1) - 1);
  }

  function relay(ws: WebSocket, target: { host: string; port: number }): void {
    opts.stats.wsSessions++;
    const key = `${target.host}:${target.port}`;
    const stream = new ClientStream();
    const early: Buffer[] = []; // client bytes that arrive while the session waits for a slot
    let tcp: Socket | undefined;
    let terminated = false; // a Terminate was seen (or the session cut): ignore what follows
    let ended = false; // the Terminate has been passed on
    let clientGone = false;
    // Chunks held back by injected latency, in order; undefined when nothing waits (the default).
    let delayed: Promise<void> | undefined;
    // A stalled session passes nothing more on, from its start-up or from the first held query:
    // the client waits on an open connection that never answers, until it gives up.
    let stalled = opts.faults ? stallsSessions(opts.faults) : false;

    const write = (chunk: Buffer) => {
      if (tcp)
        tcp.write(chunk); // buffered by Node until the TCP connection is up
      else early.push(chunk);
    };
    const end = () => {
      ended = true;
      tcp?.end(); // flushes the Terminate first, then FIN
      ws.close(1000);
    };

    ws.on("message", (data) => {
      if (terminated || stalled) return;
      const seen = stream.fromClient(toBuffer(data));
      const chunk = seen.forward;
      const action = opts.faults ? onQueries(opts.faults, seen.queries) : "pass";
      if (action === "stall") {
        // Held with what came before it still flowing; nothing from here on reaches Postgres.
        stalled = true;
        log(`ws-relay: fault: holding the session to ${key} unanswered`);
        return;
      }
      if (action === "cut") {
        // The query reached the relay, never the database; the session dies as on a lost network.
        terminated = true;
        log(`ws-relay: fault: cutting the session to ${key} mid-query`);
        ws.terminate();
        tcp?.destroy();
        return;
      }
      if (seen.terminate) {
        terminated = true;
        log(`ws-relay: Terminate from client, closing session to ${key}`);
      }
      if (action === "pass" && !delayed) {
        write(chunk);
        if (seen.terminate) end();
        return;
      }
      const wait = action === "delay" ? (opts.faults?.latencyMs ?? 0) : 0;
      const next = (delayed ?? Promise.resolve()).then(async () => {
        if (wait > 0) await sleep(wait);
        if (clientGone) return; // its 'close' has ended the TCP side already
        write(chunk);
        if (seen.terminate) end();
      });
      delayed = next;
      void next.then(() => {
        if (delayed === next) delayed = undefined;
      });
    });
    // Either side going away ends the other, so no server session is left behind.
    ws.on("close", () => {
      clientGone = true;
      tcp?.end();
    });
    ws.on("error", () => {
      clientGone = true;
      tcp?.destroy();
    });

    if (stalled) {
      log(`ws-relay: fault: holding the start-up of a session to ${key} unanswered`);
      return; // no Postgres connection: the client's 'close' has nothing to end
    }
    acquire(key, () => {
      if (clientGone) {
        release(key);
        return;
      }
      const socket = connect({ host: target.host, port: target.port });
      tcp = socket;
      socket.setNoDelay(true);
      for (const chunk of early.splice(0)) socket.write(chunk);
      if (ended) socket.end();
      socket.on("data", (chunk: Buffer) => {
        if (stream.fromServer(chunk).shuttingDown) opts.onShuttingDown?.(target);
        if (ws.readyState === ws.OPEN) ws.send(chunk);
      });
      socket.on("error", (err) => {
        log(`ws-relay: ${key}: ${err.message}`);
        socket.destroy();
      });
      socket.on("close", () => {
        release(key);
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
      });
    });
  }

  function refuse(socket: Duplex, status: string): void {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  const server: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" });
    res.end("WebSocket upgrade expected\n");
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    if (opts.faults && refusesConnections(opts.faults)) {
      socket.destroy(); // like a database that cannot be reached: no answer at all
      return;
    }
    const target = parseTarget(req.url);
    if (!target) {
      log(`ws-relay: refused ${req.url ?? ""} (only loopback address=host:port targets)`);
      refuse(socket, "403 Forbidden");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => relay(ws, target));
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : 0);
    });
  });
  log(`ws-relay: listening on ws://${host}:${port}/v2`);

  return {
    host,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Terminating each WebSocket fires its 'close', which ends the TCP side.
      for (const ws of wss.clients) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closed;
    },
  };
}
