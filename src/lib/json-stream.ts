/**
 * Streams a JSON array from batches of already-serialised JSON documents. The first batch is read
 * before the response exists, so a database failure is still a proper problem+json (503), not a
 * 200 with a cut body; later failures can only abort the stream.
 */
export async function streamJsonArray(
  batches: AsyncGenerator<string[]>,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let next = await batches.next();
  let separator = "[";

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      for (const doc of next.done ? [] : next.value) {
        chunk += separator + doc;
        separator = ",";
      }
      if (next.done) {
        controller.enqueue(encoder.encode(`${chunk}${separator === "[" ? "[" : ""}]`));
        controller.close();
        return;
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      next = await batches.next();
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}
