import { describe, expect, it } from "vitest";
import { streamJsonArray } from "../../src/lib/json-stream";

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
});
