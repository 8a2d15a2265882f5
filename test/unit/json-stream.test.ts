import { describe, expect, it } from "vitest";
import { STREAM_ABORTED_MESSAGE, streamJsonArray } from "../../src/lib/json-stream";

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
  ])("joins %s into one JSON array", async (_, chunks, expected) => {
    const text = await read(await streamJsonArray(batches(...chunks)));
    expect(text).toBe(expected);
    expect(JSON.parse(text)).toEqual(JSON.parse(expected));
  });

  it("reads the first batch before the stream exists, so its failure is the caller's", async () => {
    async function* failing(): AsyncGenerator<string[]> {
      yield* [];
      throw new Error("database down");
    }
    await expect(streamJsonArray(failing())).rejects.toThrow("database down");
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
});
