// WebSocket-to-TCP relay in the shape of Neon's proxy: ws://HOST:PORT/v2?address=host:port.
// The driver's Pool/Client (neonConfig.wsProxy) speaks the Postgres wire protocol through it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import { isIPv4 } from "node:net";
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
import { type Backend, BackendPool } from "./relay-backends";
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
  /**
   * Postgres connections to one server, in use or idle; sessions past it wait for one (default 64).
   */
  maxSessionsPerTarget?: number;
  /** How long a pooled connection may stay idle before it is closed (default 10 s). */
  idleTimeoutMs?: number;
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
  /**
   * The server at host:port refuses new sessions because it is shutting down, as the SQL endpoint
   * saw it: the relay's idle connections to it close now, those in use when their session ends.
   */
  serverShuttingDown(host: string, port: number): void;
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

/** What the relay does with one chunk of the client's bytes (ClientStream.fromClient). */
interface ClientChunk {
  /** The bytes to pass on to Postgres (without the start-up message, and without a Terminate). */
  forward: Buffer;
  /** The start-up message completed by this chunk, with IDLE_IN_TRANSACTION_OPTION added. */
  startup?: Buffer;
  /** The client ended its session (Terminate). */
  terminate: boolean;
  /** Part of that Terminate came in an earlier chunk and was passed on: Postgres ends the session. */
  terminatePassed: boolean;
  /** Queries completed (a simple Query, a Sync ending an extended query, a FunctionCall). */
  queries: number;
}

/**
 * Follows the client-to-server byte stream, and says what to pass on of each chunk:
 * - the StartupMessage, held back until whole, with IDLE_IN_TRANSACTION_OPTION added to its
 *   `options`, so that a relayed session idle in a transaction is ended by Postgres as the SQL
 *   endpoint's are (session-settings). The relay picks the session's connection by it: a pooled
 *   one started with the same message, or a new one that it starts;
 * - the Terminate message ('X'): the driver does not close its WebSocket after pool.end() (it
 *   sends Terminate and leaves the socket open), so the relay ends the session itself, and keeps
 *   the connection for another session. Following the framing avoids mistaking 'X\0\0\0\x04'
 *   inside a parameter for a Terminate;
 * - the queries the chunk completes, which fault injection counts and cuts at, and which the
 *   connection awaits a ReadyForQuery for;
 * - whether the stream stands between two messages, every extended query synced (`clean`): only
 *   then may the connection serve another session.
 * After an accepted SSLRequest the stream is TLS: stop following, pass everything on as it is.
 */
class ClientStream {
  private reader = new MessageReader({ untyped: true });
  private state: "startup" | "awaitSslAnswer" | "typed" | "opaque" = "startup";
  /** An extended query (Parse, Bind, Execute...) has been sent and not yet ended by a Sync. */
  private unsynced = false;

  get clean(): boolean {
    return this.state === "typed" && !this.unsynced && this.reader.buffered === 0;
  }

  fromClient(chunk: Buffer): ClientChunk {
    const seen: ClientChunk = {
      forward: chunk,
      terminate: false,
      terminatePassed: false,
      queries: 0,
    };
    if (this.state === "opaque" || this.state === "awaitSslAnswer") return seen;
    this.reader.push(chunk);
    if (this.state === "startup") {
      const { packet, rest, typed } = this.startup();
      if (!typed) return { ...seen, forward: packet ? Buffer.concat([packet, rest]) : rest };
      seen.startup = packet;
      seen.forward = rest;
    }
    const input = seen.forward;
    try {
      for (let m = this.reader.next(); m; m = this.reader.next()) {
        if (m.type === "X") {
          const at = input.length - this.reader.buffered - m.bytes.length;
          this.reader.drain(); // whatever follows a Terminate is never sent
          if (at >= 0) return { ...seen, forward: input.subarray(0, at), terminate: true };
          return { ...seen, terminate: true, terminatePassed: true };
        }
        if (m.type === "Q" || m.type === "S" || m.type === "F") seen.queries++;
        if (m.type === "S") this.unsynced = false;
        else if (m.type !== "Q" && m.type !== "F" && m.type !== "H") this.unsynced = true;
      }
    } catch {
      this.state = "opaque"; // not a Postgres stream we understand: just relay it
    }
    return seen;
  }

  /** Feeds server bytes: the one-byte answer to an SSLRequest. */
  fromServer(chunk: Buffer): void {
    if (this.state === "awaitSslAnswer" && chunk.length > 0)
      this.state = chunk[0] === 0x4e /* 'N' */ ? "startup" : "opaque";
  }

  /**
   * The start-up phase: nothing while its packet is incomplete; then the packet (a StartupMessage
   * with the option added, or another start-up packet as it came) and the bytes after it. After a
   * StartupMessage those stay in the reader for the typed phase to follow.
   */
  private startup(): { packet: Buffer | undefined; rest: Buffer; typed: boolean } {
    let packet: Buffer | undefined;
    try {
      const m = this.reader.next();
      if (!m) return { packet: undefined, rest: Buffer.alloc(0), typed: false };
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
    return { packet, rest, typed };
  }
}

export async function startWsRelay(opts: WsRelayOptions): Promise<WsRelay> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  // Like Neon's pooler, sessions beyond the limit wait for a free connection instead of failing:
  // a plain Postgres refuses connections past max_connections (53300) under a burst of them.
  const pool = new BackendPool({
    maxPerTarget: opts.maxSessionsPerTarget ?? 64,
    idleTimeoutMs: opts.idleTimeoutMs ?? 10_000,
    onShuttingDown: (target) => opts.onShuttingDown?.(target),
    log,
  });
  let opaqueSessions = 0;

  function relay(ws: WebSocket, target: { host: string; port: number }): void {
    opts.stats.wsSessions++;
    const key = `${target.host}:${target.port}`;
    const stream = new ClientStream();
    // Client bytes that arrive before the session has its connection, with their query counts.
    const early: [Buffer, number][] = [];
    let backend: Backend | undefined;
    let cancelWait: (() => void) | undefined;
    let requested = false;
    let finished = false;
    let terminated = false; // a Terminate was seen (or the session cut): ignore what follows
    let clientGone = false;
    // Whether nothing rules out handing the connection to another session when this one ends:
    // a fault acted, a Terminate was partly passed on, the stream is not one the relay follows.
    let clean = true;
    // Chunks held back by injected latency, in order; undefined when nothing waits (the default).
    let delayed: Promise<void> | undefined;
    // A stalled session passes nothing more on, from its start-up or from the first held query:
    // the client waits on an open connection that never answers, until it gives up.
    let stalled = opts.faults ? stallsSessions(opts.faults) : false;

    const write = (chunk: Buffer, queries: number) => {
      if (backend) backend.send(chunk, queries);
      else early.push([chunk, queries]);
    };

    /** The session is over: its connection goes back to the pool (or is closed), the socket closes. */
    const finish = () => {
      if (finished) return;
      finished = true;
      cancelWait?.();
      if (backend) pool.release(backend, clean && !stalled && stream.clean);
      backend = undefined;
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    };

    /** Asks the pool for a connection: one started with `packet`, or a new one (never shared). */
    const request = (packet: Buffer | undefined) => {
      requested = true;
      if (!packet) clean = false;
      const poolKey = packet
        ? `${key} ${packet.toString("latin1")}`
        : `${key} #${++opaqueSessions}`;
      cancelWait = pool.acquire(target, poolKey, (given, fresh) => {
        cancelWait = undefined;
        if (finished) {
          pool.release(given, !fresh);
          return;
        }
        backend = given;
        given.listener = {
          data: (chunk) => {
            stream.fromServer(chunk);
            if (ws.readyState === ws.OPEN) ws.send(chunk);
          },
          closed: finish, // Postgres ended the session: so does the relay
        };
        if (!fresh)
          ws.send(given.welcome as Buffer); // the start-up, answered as it was before
        else if (packet) given.startup(packet);
        for (const [chunk, queries] of early.splice(0)) given.send(chunk, queries);
      });
    };

    ws.on("message", (data) => {
      if (terminated || stalled) return;
      const seen = stream.fromClient(toBuffer(data));
      if (seen.startup) {
        if (!requested) request(seen.startup);
        else write(seen.startup, 0); // after an SSLRequest the server declined
      } else if (!requested && seen.forward.length > 0) {
        request(undefined);
      }
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
        clean = false;
        log(`ws-relay: fault: cutting the session to ${key} mid-query`);
        ws.terminate();
        finish();
        return;
      }
      if (seen.terminate) terminated = true;
      const pass = () => {
        if (seen.forward.length > 0) write(seen.forward, seen.queries);
        if (!seen.terminate) return;
        if (seen.terminatePassed) clean = false;
        log(`ws-relay: Terminate from client, ending the session to ${key}`);
        finish();
      };
      if (action === "pass" && !delayed) {
        pass();
        return;
      }
      const wait = action === "delay" ? (opts.faults?.latencyMs ?? 0) : 0;
      const next = (delayed ?? Promise.resolve()).then(async () => {
        if (wait > 0) await sleep(wait);
        if (clientGone) {
          clean = false; // what it held never reached Postgres, maybe half a message
          return;
        }
        pass();
      });
      delayed = next;
      void next.then(() => {
        if (delayed === next) delayed = undefined;
      });
    });
    // The client going away ends the session; a transaction it left open is rolled back.
    const gone = () => {
      clientGone = true;
      if (!delayed) finish();
      else void delayed.then(finish);
    };
    ws.on("close", gone);
    ws.on("error", gone);

    if (stalled) log(`ws-relay: fault: holding the start-up of a session to ${key} unanswered`);
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
    serverShuttingDown(targetHost, targetPort) {
      pool.retire({ host: targetHost, port: targetPort });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      pool.closeAll(); // from here on, a connection released is closed, not kept
      // Terminating each WebSocket fires its 'close', which ends its session.
      for (const ws of wss.clients) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closed;
    },
  };
}
