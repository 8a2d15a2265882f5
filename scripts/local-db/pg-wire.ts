// Small helpers for the Postgres v3 wire protocol, shared by the PGlite server and the WebSocket relay.
// Only what those two need: message framing, and building the few backend messages we answer ourselves.

export const PROTOCOL_3_0 = 196608;
export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;

/** A complete frontend or backend message. `type` is null for the untyped startup-phase packets. */
export interface WireMessage {
  type: string | null;
  /** The whole message including type byte and length. */
  bytes: Buffer;
}

/**
 * Reassembles messages from a byte stream that arrives in arbitrary chunks.
 * Startup-phase packets (StartupMessage, SSLRequest, CancelRequest) have no type byte; the caller
 * says which kind it expects next via `untyped`.
 */
export class MessageReader {
  // Chunks are only concatenated once a whole message is there, so a large message arriving in
  // many small chunks costs O(n), not O(n^2).
  private chunks: Buffer[] = [];
  private length = 0;
  untyped: boolean;
  /** Largest message accepted; anything longer is treated as a protocol violation. */
  private readonly maxLength: number;

  constructor(opts: { untyped: boolean; maxLength?: number }) {
    this.untyped = opts.untyped;
    this.maxLength = opts.maxLength ?? 1 << 30;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    this.length += chunk.length;
  }

  /** Next complete message, or null if more bytes are needed. Throws on a malformed length. */
  next(): WireMessage | null {
    const header = this.untyped ? 4 : 5;
    if (this.length < header) return null;
    const first = this.take(header, false);
    const length = first.readInt32BE(header - 4);
    if (length < 4 || length > this.maxLength) throw new Error(`invalid message length ${length}`);
    const total = length + (this.untyped ? 0 : 1);
    if (this.length < total) return null;
    const bytes = this.take(total, true);
    return { type: this.untyped ? null : String.fromCharCode(first[0] ?? 0), bytes };
  }

  get buffered(): number {
    return this.length;
  }

  /** Every byte held and not yet returned as a message, removed from the reader. */
  drain(): Buffer {
    const rest = Buffer.concat(this.chunks);
    this.chunks = [];
    this.length = 0;
    return rest;
  }

  /** The first n bytes (n <= length), merged into one chunk; removed from the stream if consume. */
  private take(n: number, consume: boolean): Buffer {
    let head = this.chunks[0] ?? Buffer.alloc(0);
    if (head.length < n) {
      head = Buffer.concat(this.chunks);
      this.chunks = [head];
    }
    const out = head.subarray(0, n);
    if (consume) {
      const rest = head.subarray(n);
      if (rest.length > 0) this.chunks[0] = rest;
      else this.chunks.shift();
      this.length -= n;
    }
    return out;
  }
}

/**
 * Follows a backend byte stream without copying it and remembers the last message type and the
 * status byte of the last ReadyForQuery. Used to know when a client has reached a transaction
 * boundary (last message is ReadyForQuery 'I').
 */
export class ReadyForQueryTracker {
  private header = Buffer.alloc(5);
  private headerFill = 0;
  private bodyLeft = 0;
  private currentType = "";
  lastType = "";
  lastStatus = "";

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyLeft === 0 && this.headerFill < 5) {
        this.header[this.headerFill++] = chunk[i++] ?? 0;
        if (this.headerFill === 5) {
          this.currentType = String.fromCharCode(this.header.readUInt8(0));
          this.bodyLeft = this.header.readInt32BE(1) - 4;
          if (this.bodyLeft === 0) this.finish();
        }
        continue;
      }
      const take = Math.min(this.bodyLeft, chunk.length - i);
      if (this.currentType === "Z" && take > 0)
        this.lastStatus = String.fromCharCode(chunk[i] ?? 0);
      i += take;
      this.bodyLeft -= take;
      if (this.bodyLeft === 0) this.finish();
    }
  }

  /** True when the stream so far ends exactly with ReadyForQuery reporting `status`. */
  endsWithReadyForQuery(status: string): boolean {
    return this.headerFill === 0 && this.lastType === "Z" && this.lastStatus === status;
  }

  private finish(): void {
    this.lastType = this.currentType;
    this.headerFill = 0;
  }
}

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export function errorResponse(fields: {
  severity: "ERROR" | "FATAL";
  code: string;
  message: string;
}): Buffer {
  const parts = [
    `S${fields.severity}`,
    `V${fields.severity}`,
    `C${fields.code}`,
    `M${fields.message}`,
  ];
  return message("E", Buffer.from(`${parts.join("\0")}\0\0`, "utf8"));
}

export function authenticationOk(): Buffer {
  return message("R", Buffer.from([0, 0, 0, 0]));
}

export function backendKeyData(processId: number, secretKey: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeInt32BE(processId, 0);
  body.writeInt32BE(secretKey, 4);
  return message("K", body);
}

export function readyForQuery(status: "I" | "T" | "E"): Buffer {
  return message("Z", Buffer.from(status, "latin1"));
}

/** The simple-protocol Query message, for the few statements we issue ourselves (ROLLBACK). */
export function simpleQuery(sql: string): Buffer {
  return message("Q", Buffer.from(`${sql}\0`, "utf8"));
}

export function syncMessage(): Buffer {
  return message("S", Buffer.alloc(0));
}

/** A StartupMessage (protocol 3.0) with the given parameters. */
export function startupMessage(params: Record<string, string>): Buffer {
  const pairs = Object.entries(params).flat();
  const body = Buffer.from(`${pairs.join("\0")}\0\0`, "utf8");
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3_0, 4);
  return Buffer.concat([head, body]);
}

/** The parameters of a StartupMessage (protocol 3.0): name, value, name, value, ..., "". */
export function startupParameters(message: Buffer): Record<string, string> {
  const fields = message.subarray(8).toString("utf8").split("\0");
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length && fields[i] !== ""; i += 2)
    params[fields[i] as string] = fields[i + 1] as string;
  return params;
}

/** Splits a buffer holding whole backend messages. */
export function splitMessages(bytes: Uint8Array): WireMessage[] {
  const reader = new MessageReader({ untyped: false });
  reader.push(bytes);
  const out: WireMessage[] = [];
  for (let m = reader.next(); m; m = reader.next()) out.push(m);
  return out;
}
