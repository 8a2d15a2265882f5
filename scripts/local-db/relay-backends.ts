// The Postgres connections of the WebSocket relay, pooled as Neon's proxy pools its own: a
// connection whose start-up needed no password is kept when its session ends cleanly, reset
// (ROLLBACK if a transaction was left open, then DISCARD ALL) and handed to the next session
// with the same start-up parameters, which the relay answers itself. Each interactive transaction
// of the Worker is one session; without the pool each started a new Postgres backend (a process:
// under 50 clients on 2 CPUs, starts queued past the Worker's 2 s bound and answered 503).
import { connect, type Socket } from "node:net";
import { MessageReader, simpleQuery } from "./pg-wire";

export interface Target {
  host: string;
  port: number;
}

/** The SQLSTATE field of an ErrorResponse refusing a session during a shutdown. */
const SHUTTING_DOWN = Buffer.from("C57P03\0", "latin1");
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
const ROLLBACK = simpleQuery("rollback");
const DISCARD_ALL = simpleQuery("discard all");
/** A reset that has not finished within this is abandoned with its connection. */
const RESET_TIMEOUT_MS = 2_000;

/** Who receives a connection's bytes: the session it serves, or the pool while it resets it. */
interface Listener {
  data(chunk: Buffer): void;
  closed(): void;
}

/**
 * One Postgres connection. It follows the server's messages from the start-up message on
 * (`startup`): how many ReadyForQuery answers are still due, the transaction status of the last,
 * the errors, and what the server answered the start-up, which later sessions are answered.
 */
export class Backend {
  readonly socket: Socket;
  /**
   * What a later session is answered for its start-up: set once the start-up ended in
   * ReadyForQuery with no password asked (only such a connection is ever handed on).
   */
  welcome: Buffer | undefined;
  /** ReadyForQuery answers due for the queries sent (a simple Query, a Sync, a FunctionCall each). */
  pending = 0;
  /** Status of the last ReadyForQuery: I idle, T in a transaction, E in a failed one. */
  status = "I";
  /** ErrorResponses seen since the start-up. */
  errors = 0;
  closed = false;
  /** The server's stream stopped making sense: never reused, closed with a reset. */
  broken = false;
  listener: Listener | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Whether `startup` ran: the server's bytes are followed from then on. */
  private following = false;
  private started = false;
  /** The start-up asked for a password or failed: the connection serves its own session only. */
  private ownSessionOnly = false;
  private startupAnswer: Buffer[] = [];
  private reader = new MessageReader({ untyped: false });
  // After the start-up, messages are followed by their headers alone, without copying their bodies.
  private header = Buffer.alloc(5);
  private headerFill = 0;
  private bodyLeft = 0;
  private type = 0;

  constructor(
    readonly target: Target,
    readonly key: string,
    readonly generation: number,
    private readonly onShuttingDown: () => void,
    log: (msg: string) => void,
  ) {
    this.socket = connect({ host: target.host, port: target.port });
    this.socket.setNoDelay(true);
    this.socket.on("data", (chunk: Buffer) => {
      if (this.following) this.follow(chunk);
      this.listener?.data(chunk);
    });
    this.socket.on("error", (err) => {
      log(`ws-relay: ${target.host}:${target.port}: ${err.message}`);
      this.socket.destroy();
    });
    this.socket.on("close", () => {
      this.closed = true;
      this.listener?.closed();
    });
  }

  /** Sends the start-up message: the server's answer to it is followed, and kept if reusable. */
  startup(packet: Buffer): void {
    this.following = true;
    this.socket.write(packet);
  }

  send(chunk: Buffer, queries: number): void {
    this.pending += queries;
    this.socket.write(chunk);
  }

  /** Started, and between two messages with every answer in (in a transaction or not). */
  get settled(): boolean {
    return (
      this.started &&
      !this.broken &&
      !this.closed &&
      this.pending === 0 &&
      this.headerFill === 0 &&
      this.bodyLeft === 0
    );
  }

  /** Settled, and may serve another session once reset. */
  get quiet(): boolean {
    return this.settled && this.welcome !== undefined;
  }

  /** Ends the connection: with a Terminate when nothing is under way, else with a reset (RST). */
  close(): void {
    if (this.closed) return;
    if (this.settled) {
      this.socket.end(TERMINATE);
    } else {
      // A statement in flight is not run when its bytes still wait in the server's socket (a
      // paused server): the endpoint does the same for a caller gone (neon-http-server.ts).
      this.socket.resetAndDestroy();
    }
  }

  private follow(chunk: Buffer): void {
    if (!this.started) {
      this.reader.push(chunk);
      try {
        for (let m = this.reader.next(); m; m = this.reader.next()) {
          this.onStartupMessage(m.type ?? "", m.bytes);
          if (this.started) break;
        }
      } catch {
        this.broken = true;
        this.following = false;
        return;
      }
      if (!this.started) return;
      const rest = this.reader.drain();
      if (rest.length > 0) this.scan(rest);
      return;
    }
    this.scan(chunk);
  }

  private onStartupMessage(type: string, bytes: Buffer): void {
    if (type === "R") {
      // Anything but AuthenticationOk first means the client authenticates: never handed to another.
      if (bytes.readInt32BE(5) !== 0 || this.startupAnswer.length > 0) this.ownSessionOnly = true;
      this.startupAnswer.push(Buffer.from(bytes));
    } else if (type === "S" || type === "K") {
      this.startupAnswer.push(Buffer.from(bytes));
    } else if (type === "E") {
      this.errors++;
      this.ownSessionOnly = true;
      if (bytes.includes(SHUTTING_DOWN)) this.onShuttingDown();
    } else if (type === "Z") {
      this.started = true;
      this.status = String.fromCharCode(bytes[5] ?? 0);
      if (!this.ownSessionOnly && this.startupAnswer.length > 0 && this.status === "I")
        this.welcome = Buffer.concat([...this.startupAnswer, bytes]);
      this.startupAnswer = [];
    }
  }

  private scan(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyLeft === 0) {
        this.header[this.headerFill++] = chunk[i++] ?? 0;
        if (this.headerFill < 5) continue;
        this.headerFill = 0;
        this.type = this.header[0] ?? 0;
        this.bodyLeft = this.header.readInt32BE(1) - 4;
        if (this.bodyLeft < 0) {
          this.broken = true;
          this.bodyLeft = Number.POSITIVE_INFINITY; // stop following this stream
        } else if (this.type === 0x45 /* E */) {
          this.errors++;
        }
        continue;
      }
      const take = Math.min(this.bodyLeft, chunk.length - i);
      if (this.type === 0x5a /* Z */) {
        this.status = String.fromCharCode(chunk[i] ?? 0);
        this.pending = Math.max(0, this.pending - 1);
      }
      i += take;
      this.bodyLeft -= take;
    }
  }
}

interface Waiter {
  key: string;
  give(backend: Backend, fresh: boolean): void;
}

export interface BackendPoolOptions {
  /** Connections to one server (in use, idle, starting or resetting); past it sessions wait. */
  maxPerTarget: number;
  /** An idle connection is closed after this long unused. */
  idleTimeoutMs: number;
  /** A new connection's start-up was refused because the server is shutting down (57P03). */
  onShuttingDown(target: Target): void;
  log(msg: string): void;
}

export class BackendPool {
  private idle = new Map<string, Backend[]>();
  private open = new Map<string, Set<Backend>>();
  private waiting = new Map<string, Waiter[]>();
  private generations = new Map<string, number>();
  private closed = false;

  constructor(private readonly opts: BackendPoolOptions) {}

  /**
   * Gives a connection for start-up parameters `key`: an idle one already started (fresh false:
   * the session answers its client with `welcome`), or a new one the session starts itself. Past
   * the limit, the session waits for one; the answer cancels that wait.
   */
  acquire(target: Target, key: string, give: Waiter["give"]): () => void {
    const waiter: Waiter = { key, give };
    if (this.serve(target, waiter)) return () => {};
    const name = targetName(target);
    this.waiting.set(name, [...(this.waiting.get(name) ?? []), waiter]);
    return () => {
      const queue = this.waiting.get(name);
      if (queue?.includes(waiter))
        this.waiting.set(
          name,
          queue.filter((w) => w !== waiter),
        );
    };
  }

  /**
   * The session that had `backend` has ended. `clean`: its client ended it between two messages
   * and the connection may serve another once reset; otherwise it is closed.
   */
  release(backend: Backend, clean: boolean): void {
    backend.listener = undefined;
    const current = this.generations.get(targetName(backend.target)) ?? 0;
    if (!clean || !backend.quiet || backend.generation !== current || this.closed) {
      this.discard(backend);
      return;
    }
    const errors = backend.errors;
    const reset = backend.status === "I" ? [DISCARD_ALL] : [ROLLBACK, DISCARD_ALL];
    const timer = setTimeout(() => {
      this.opts.log("ws-relay: a pooled connection did not finish its reset; closing it");
      this.discard(backend);
    }, RESET_TIMEOUT_MS);
    backend.listener = {
      data: () => {
        if (backend.pending > 0) return;
        clearTimeout(timer);
        backend.listener = undefined;
        if (backend.errors === errors && backend.status === "I") this.makeIdle(backend);
        else this.discard(backend);
      },
      closed: () => {
        clearTimeout(timer);
        this.discard(backend);
      },
    };
    backend.send(Buffer.concat(reset), reset.length);
  }

  /**
   * A server refuses new sessions because it is shutting down: a smart shutdown waits for every
   * open session, so the idle ones close now and those in use when their session ends.
   */
  retire(target: Target): void {
    const name = targetName(target);
    this.generations.set(name, (this.generations.get(name) ?? 0) + 1);
    for (const backend of [...(this.open.get(name) ?? [])]) {
      if (backend.idleTimer) this.discard(backend);
    }
  }

  /** Closes every connection, and those released from now on. */
  closeAll(): void {
    this.closed = true;
    for (const set of this.open.values()) for (const backend of [...set]) this.discard(backend);
    this.waiting.clear();
  }

  private serve(target: Target, waiter: Waiter): boolean {
    const name = targetName(target);
    const idle = this.idle.get(waiter.key)?.pop();
    if (this.idle.get(waiter.key)?.length === 0) this.idle.delete(waiter.key);
    if (idle) {
      clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      waiter.give(idle, false);
      return true;
    }
    const open = this.open.get(name) ?? new Set<Backend>();
    if (open.size >= this.opts.maxPerTarget) {
      // Room is made by closing an idle connection of other start-up parameters, if there is one.
      const other = [...open].find((b) => b.idleTimer !== undefined);
      if (!other) return false;
      this.discard(other, false);
    }
    const generation = this.generations.get(name) ?? 0;
    const backend = new Backend(
      target,
      waiter.key,
      generation,
      () => {
        this.retire(target);
        this.opts.onShuttingDown(target);
      },
      this.opts.log,
    );
    open.add(backend);
    this.open.set(name, open);
    waiter.give(backend, true);
    return true;
  }

  private makeIdle(backend: Backend): void {
    if (this.closed) {
      this.discard(backend);
      return;
    }
    const name = targetName(backend.target);
    const queue = this.waiting.get(name) ?? [];
    const same = queue.findIndex((w) => w.key === backend.key);
    if (same >= 0) {
      const [waiter] = queue.splice(same, 1);
      waiter?.give(backend, false);
      return;
    }
    if (queue.length > 0) {
      this.discard(backend); // its slot serves a session of other start-up parameters
      return;
    }
    backend.idleTimer = setTimeout(() => this.discard(backend), this.opts.idleTimeoutMs);
    backend.idleTimer.unref();
    backend.listener = { data: () => {}, closed: () => this.discard(backend) };
    this.idle.set(backend.key, [...(this.idle.get(backend.key) ?? []), backend]);
  }

  /** Closes `backend` and gives its slot to the next waiting session (unless `wake` is false). */
  private discard(backend: Backend, wake = true): void {
    const name = targetName(backend.target);
    const open = this.open.get(name);
    if (!open?.delete(backend)) return;
    if (open.size === 0) this.open.delete(name);
    if (backend.idleTimer) {
      clearTimeout(backend.idleTimer);
      backend.idleTimer = undefined;
      const idle = this.idle.get(backend.key)?.filter((b) => b !== backend) ?? [];
      if (idle.length > 0) this.idle.set(backend.key, idle);
      else this.idle.delete(backend.key);
    }
    backend.listener = undefined;
    backend.close();
    if (!wake) return;
    const next = this.waiting.get(name)?.shift();
    if (next && !this.serve(backend.target, next)) this.waiting.get(name)?.unshift(next);
  }
}

function targetName(target: Target): string {
  return `${target.host}:${target.port}`;
}
