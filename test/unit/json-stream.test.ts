import { describe, expect, it } from "vitest";
import {
  STREAM_ABORTED_MESSAGE,
  STREAM_CHUNK_CHARS,
  streamJsonArray,
} from "../../src/lib/json-stream";

async function* batches(...chunks: string[][]) {
  for (const chunk of chunks) yield chunk;
}

const read = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("streamJsonArray", () => {
  it.each([
    ["no batch at all", [], "[]"],
    ["one empty batch", [[]], "[]"],
    ["one batch", [["1", "2"]], "[1,2]"],
    ["several batches", [["1"], ["2", "3"], ["4"]], "[1,2,3,4]"],
    // A keyset export whose size is a multiple of the batch size ends with an empty batch.
    ["a trailing empty batch", [["1", "2"], ["3", "4"], []], "[1,2,3,4]"],
    ["empty batches in between", [["1"], [], [], ["2"], []], "[1,2]"],
    ["elements that hold several documents", [["1,2", "3"], ["4,5"]], "[1,2,3,4,5]"],
  ])("joins %s into one JSON array", async (_, chunks, expected) => {
    const text = await read(await streamJsonArray(batches(...chunks)));
    expect(text).toBe(expected);
    expect(JSON.parse(text)).toEqual(JSON.parse(expected));
  });

  it("sends a large batch in chunks cut between documents, never as one string", async () => {
    const doc = JSON.stringify({ name: "Grüße 🍷", padding: "x".repeat(500) });
    const batch = Array.from({ length: 200 }, () => doc);
    const reader = (await streamJsonArray(batches(batch, batch))).getReader();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(decoder.decode(read.value));
    }
    expect(chunks.join("")).toBe(`[${[...batch, ...batch].join(",")}]`);
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks)
      expect(chunk.length).toBeLessThan(STREAM_CHUNK_CHARS + doc.length + 1);
  });

  it("reads the first batch before the stream exists, so its failure is the caller's", async () => {
    async function* failing(): AsyncGenerator<string[]> {
      yield* [];
      throw new Error("database down");
    }
    await expect(streamJsonArray(failing())).rejects.toThrow("database down");
  });

  it("a client gone while the next batch is read is no failure: onAbort is not called", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<string[]> {
      yield ["1"];
      await held;
      yield ["2"];
    }
    const aborted: unknown[] = [];
    const reader = (await streamJsonArray(slow(), (error) => aborted.push(error))).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("[1");
    const reading = reader.read(); // a pull that waits for the second batch
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The cancel waits for the generator, which waits for the batch: released after it starts.
    const cancelling = reader.cancel();
    release();
    await cancelling;
    await reading.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toEqual([]);
  });

  it("cuts the stream on a later failure, with a fixed error, and hands the cause to onAbort", async () => {
    const cause = new Error("Failed query: select secret params: customer@example.com");
    async function* failingLater(): AsyncGenerator<string[]> {
      yield ["1"];
      throw cause;
    }
    const aborted: unknown[] = [];
    const stream = await streamJsonArray(failingLater(), (error) => aborted.push(error));
    const failure = await read(stream).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(STREAM_ABORTED_MESSAGE);
    expect(aborted).toEqual([cause]);
  });

  it("sends the whole of a batch before the failure of the next one cuts the stream", async () => {
    const doc = JSON.stringify({ padding: "x".repeat(1000) });
    const batch = Array.from({ length: 200 }, () => doc);
    async function* failingAfterOne(): AsyncGenerator<string[]> {
      yield batch;
      throw new Error("database down");
    }
    const reader = (await streamJsonArray(failingAfterOne())).getReader();
    const decoder = new TextDecoder();
    let received = "";
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        received += decoder.decode(value);
      }
    })().catch((error: unknown) => error);
    expect((failure as Error).message).toBe(STREAM_ABORTED_MESSAGE);
    // Many chunks: none of them discarded by the failure that followed.
    expect(received).toBe(`[${batch.join(",")}`);
  });
});
