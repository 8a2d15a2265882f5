// Serves one PGlite instance to many TCP clients over the Postgres wire protocol.
//
// PGlite is a single backend session, so clients take turns: a client that sends a message acquires
// PGlite and keeps it until a ReadyForQuery it receives reports 'I' (idle, outside any transaction),
// then the next waiting client gets it. Messages of waiting clients are buffered, not rejected.
// @electric-sql/pglite-socket's multi-connection mode interleaves messages of different clients
// (it only pins a client while `isInTransaction()`, which misses an unsynced extended-protocol
// exchange), hence this multiplexer.
//
// Limitation: session state (SET, named prepared statements, temp tables) is shared by all clients,
// because there is only one session underneath.
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import {
  authenticationOk,
  backendKeyData,
  CANCEL_REQUEST_CODE,
  errorResponse,
  GSSENC_REQUEST_CODE,
  MessageReader,
  PROTOCOL_3_0,
  ReadyForQueryTracker,
  readyForQuery,
  SSL_REQUEST_CODE,
  simpleQuery,
  splitMessages,
  startupMessage,
  syncMessage,
} from "./pg-wire";

export interface PgliteServerOptions {
  db: PGlite;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Clients allowed to wait for PGlite at once; beyond that a client gets FATAL 53300. */
  maxWaiting?: number;
  /** A client holding PGlite inside a transaction and silent this long is disconnected (0 = never). */
  idleInTransactionTimeoutMs?: number;
  log?: (msg: string) => void;
}

export interface PgliteServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

interface Conn {
  id: number;
  socket: Socket;
  reader: MessageReader;
  /** True once the StartupMessage has been answered. */
  ready: boolean;
  closed: boolean;
  /** Complete messages received but not yet handed to PGlite. */
  pending: Buffer[];
  idleTimer?: NodeJS.Timeout;
}

export async function startPgliteServer(opts: PgliteServerOptions): Promise<PgliteServer> {
  const { db } = opts;
  const host = opts.host ?? "127.0.0.1";
  const maxWaiting = opts.maxWaiting ?? 1000;
  const idleTimeoutMs = opts.idleInTransactionTimeoutMs ?? 60_000;
  const log = opts.log ?? (() => {});

  await db.waitReady;
  // PGlite's own answer to a StartupMessage, minus its ReadyForQuery: replayed to every client so
  // they see the real server_version, encoding and DateStyle. Taken once, while nobody else runs.
  const startupReply = await db.runExclusive(async () => {
    const raw = await db.execProtocolRaw(
      startupMessage({ user: "postgres", database: "postgres" }),
    );
    return Buffer.concat(
      splitMessages(raw)
        .filter((m) => m.type === "S")
        .map((m) => m.bytes),
    );
  });

  const conns = new Set<Conn>();
  const waiting: Conn[] = [];
  let holder: Conn | null = null;
  let driving = false;
  let nextId = 1;

  function closeConn(c: Conn, reason?: Buffer): void {
    if (c.closed) return;
    c.closed = true;
    clearTimeout(c.idleTimer);
    conns.delete(c);
    const i = waiting.indexOf(c);
    if (i >= 0) waiting.splice(i, 1);
    if (reason && c.socket.writable) c.socket.end(reason);
    else c.socket.end();
    c.socket.destroySoon();
    void drive(); // if it held PGlite, drive() rolls back and hands over
  }

  function want(c: Conn): void {
    if (c === holder || waiting.includes(c)) return;
    if (waiting.length >= maxWaiting) {
      log(`pglite-server: queue full (${maxWaiting}), refusing client #${c.id}`);
      closeConn(
        c,
        errorResponse({
          severity: "FATAL",
          code: "53300",
          message: "too many clients waiting for the embedded database",
        }),
      );
      return;
    }
    waiting.push(c);
  }

  /** Runs messages through PGlite, streaming the answer to the client; returns the answer tracker. */
  async function exec(c: Conn | null, bytes: Buffer): Promise<ReadyForQueryTracker> {
    const tracker = new ReadyForQueryTracker();
    await db.runExclusive(() =>
      db.execProtocolRawStream(bytes, {
        onRawData: (data) => {
          tracker.push(data);
          // `data` is a view into PGlite's buffer: copy before it is reused.
          if (c && !c.closed) c.socket.write(Buffer.from(data));
        },
      }),
    );
    return tracker;
  }

  /** A client that left while holding PGlite: finish any extended-protocol exchange and roll back. */
  async function cleanupAfter(c: Conn): Promise<void> {
    await exec(null, syncMessage());
    if (db.isInTransaction()) {
      log(`pglite-server: client #${c.id} left inside a transaction, rolling back`);
      await exec(null, simpleQuery("ROLLBACK"));
    }
  }

  /** The single loop that hands PGlite to one client at a time. Re-entrant calls are no-ops. */
  async function drive(): Promise<void> {
    if (driving) return;
    driving = true;
    try {
      for (;;) {
        if (!holder) holder = waiting.shift() ?? null;
        if (!holder) break;
        const c = holder;
        if (c.closed) {
          await cleanupAfter(c).catch((err: unknown) =>
            log(`pglite-server: cleanup failed: ${String(err)}`),
          );
          holder = null;
          continue;
        }
        if (c.pending.length === 0) break; // holder is mid-transaction, waiting for its next message
        clearTimeout(c.idleTimer);
        const batch = Buffer.concat(c.pending);
        c.pending = [];
        let tracker: ReadyForQueryTracker;
        try {
          tracker = await exec(c, batch);
        } catch (err) {
          log(`pglite-server: PGlite failed for client #${c.id}: ${String(err)}`);
          closeConn(
            c,
            errorResponse({
              severity: "FATAL",
              code: "XX000",
              message: `embedded database failure: ${String(err)}`,
            }),
          );
          continue;
        }
        if (c.closed) continue;
        if (tracker.endsWithReadyForQuery("I")) {
          holder = null;
          if (c.pending.length > 0) want(c); // more work: go to the back of the line
        } else if (c.pending.length === 0 && idleTimeoutMs > 0) {
          c.idleTimer = setTimeout(() => {
            log(`pglite-server: client #${c.id} idle in transaction, disconnecting`);
            closeConn(
              c,
              errorResponse({
                severity: "FATAL",
                code: "25P03",
                message: "terminating connection due to idle-in-transaction timeout",
              }),
            );
          }, idleTimeoutMs);
        }
      }
    } finally {
      driving = false;
    }
  }

  /** Startup phase: SSL/GSS requests are declined, CancelRequest ignored, StartupMessage answered here. */
  function handleStartupPacket(c: Conn, packet: Buffer): void {
    const code = packet.length >= 8 ? packet.readInt32BE(4) : 0;
    if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
      c.socket.write("N");
    } else if (code === CANCEL_REQUEST_CODE) {
      closeConn(c); // no backend process to signal
    } else if (code === PROTOCOL_3_0) {
      c.ready = true;
      c.reader.untyped = false;
      c.socket.write(
        Buffer.concat([
          authenticationOk(),
          startupReply,
          backendKeyData(c.id, (Math.random() * 2 ** 31) | 0),
          readyForQuery("I"),
        ]),
      );
    } else {
      closeConn(
        c,
        errorResponse({
          severity: "FATAL",
          code: "0A000",
          message: `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`,
        }),
      );
    }
  }

  function onData(c: Conn, chunk: Buffer): void {
    c.reader.push(chunk);
    try {
      for (let m = c.reader.next(); m && !c.closed; m = c.reader.next()) {
        if (!c.ready) handleStartupPacket(c, m.bytes);
        else if (m.type === "X")
          closeConn(c); // Terminate: PGlite never sees it
        else c.pending.push(m.bytes);
      }
    } catch (err) {
      closeConn(
        c,
        errorResponse({
          severity: "FATAL",
          code: "08P01",
          message: `invalid frontend message: ${String(err)}`,
        }),
      );
      return;
    }
    if (!c.closed && c.pending.length > 0) {
      want(c);
      void drive();
    }
  }

  const server: Server = createServer((socket) => {
    const c: Conn = {
      id: nextId++,
      socket,
      reader: new MessageReader({ untyped: true, maxLength: 1 << 30 }),
      ready: false,
      closed: false,
      pending: [],
    };
    conns.add(c);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => onData(c, chunk));
    socket.on("error", () => closeConn(c)); // ECONNRESET etc.: the client is gone
    socket.on("close", () => closeConn(c));
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : 0);
    });
  });
  server.on("error", (err) => log(`pglite-server: ${String(err)}`));
  log(`pglite-server: listening on ${host}:${port}`);

  return {
    host,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of [...conns]) {
        closeConn(c);
        c.socket.destroy();
      }
      await closed;
      // Let an in-flight PGlite call (and a rollback for its client) finish before the caller closes db.
      while (driving) await new Promise((r) => setTimeout(r, 5));
    },
  };
}
