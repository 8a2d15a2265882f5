// A body sent with a GET, over real HTTP into workerd: fetch() cannot send one (neither undici nor
// workerd builds such a Request), so the worker test project cannot; node:http can. The body
// middleware (src/middleware/json-body.ts) runs here through Miniflare as it does in the app.

import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./helpers";

const ENTRY = `
import { Hono } from "hono";
import { AppError } from "./src/lib/errors";
import { jsonBody } from "./src/middleware/json-body";
const app = new Hono();
app.use(...jsonBody);
app.get("/", (c) => c.text("read"));
app.post("/", async (c) => c.text("posted " + JSON.stringify(await c.req.json()).length));
app.onError((e, c) => c.text(e instanceof AppError ? e.code : String(e), e instanceof AppError ? e.status : 500));
export default app;
`;

let worker: Awaited<ReturnType<typeof startWorker>>;
let url: URL;
beforeAll(async () => {
  worker = await startWorker(ENTRY);
  url = worker.url;
}, 60_000);

afterAll(async () => {
  await worker?.close();
});

/**
 * One request over its own connection: status and body text. A body given as chunks goes without
 * a Content-Length (chunked), each chunk written as the socket takes it.
 */
function send(method: string, body: string | string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunked = Array.isArray(body);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          "Content-Type": "application/json",
          ...(chunked ? {} : { "Content-Length": Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve(`${res.statusCode} ${text}`));
      },
    );
    req.on("error", reject);
    if (!chunked) {
      req.end(body);
      return;
    }
    const chunks = [...body];
    const write = () => {
      while (chunks.length > 0) {
        if (!req.write(chunks.shift())) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

/** A POST of raw header lines and body text; the whole answer once the server closes. */
function sendRaw(rest: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      answer += text;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.end(
      `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nConnection: close\r\n${rest}`,
    );
  });
}

describe("the body rules in workerd", () => {
  const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) });

  it("leave the body of a GET unread, whatever its size", async () => {
    expect(await send("GET", big)).toBe("200 read");
    expect(await send("GET", "not json")).toBe("200 read");
  });

  it("answer 413 to a chunked body of 10 MiB, read to its end before answering", async () => {
    const chunk = "x".repeat(64 * 1024);
    const body = ['{"pad":"', ...Array.from({ length: 160 }, () => chunk), '"}'];
    for (let i = 0; i < 5; i++) expect(await send("POST", body)).toBe("413 PAYLOAD_TOO_LARGE");
    expect(await send("POST", ['{"pad":', '"x"}'])).toBe("200 posted 11");
  });

  it("answer 400 MALFORMED_JSON to a chunked body that cannot be read (was a 503: the read's error was taken for the database's)", async () => {
    for (const chunks of ["zz\r\n{}\r\n0\r\n\r\n", "2\r\n{}XX0\r\n\r\n", `${"f".repeat(20)}\r\n`]) {
      expect(await sendRaw(`Transfer-Encoding: chunked\r\n\r\n${chunks}`)).toMatch(
        /^HTTP\/1\.1 400 [\s\S]*MALFORMED_JSON$/,
      );
    }
    expect(await send("POST", ['{"pad":', '"x"}'])).toBe("200 posted 11");
  });

  it("still refuse a POST body over 1 MiB", async () => {
    expect(await send("POST", big)).toBe("413 PAYLOAD_TOO_LARGE");
    expect(await send("POST", JSON.stringify({ pad: "x" }))).toBe("200 posted 11");
  });
});
