/**
 * Streams a JSON array from batches of already-serialised JSON documents (an element may also be
 * several documents joined by commas, as Postgres builds them; never an empty string). The first
 * batch is read before the response exists, so a database failure is still a proper problem+json
 * (503), not a 200 with a cut body; later failures can only abort the stream. Such a failure goes
 * to `onAbort` (to log) and the stream errors with a fixed message: the runtime logs a stream's
 * error as is, and a driver error carries the SQL and its parameters.
 */
export const STREAM_ABORTED_MESSAGE = "The stream was cut off: a later batch failed.";

/**
 * A batch goes out in chunks of at most about this many characters, cut between elements (so never
 * inside a document or a character), rather than as one string: a string over 128 KiB is a V8
 * large object, flattened and encoded in fresh memory each time, which costs several times the CPU
 * of the same bytes in regular strings (32K characters stay under it even as UTF-16, and under
 * 128 KiB when encoded). A document longer than this is a chunk of its own.
 */
export const STREAM_CHUNK_CHARS = 32_768;

export async function streamJsonArray(
  batches: AsyncGenerator<string[]>,
  onAbort: (error: unknown) => void = () => {},
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let next: Promise<IteratorResult<string[]>> = Promise.resolve(await batches.next());
  let separator = "[";
  // The client went away (the runtime cancels the body): a pull still under way then fails to
  // enqueue ("Unable to enqueue"), which is no failure of the export to log.
  let cancelled = false;

  return new ReadableStream<Uint8Array>({
    // Every pull must enqueue or close: a pull that does neither is never called again, and the
    // response would hang. So empty batches are skipped here, not passed on as empty chunks.
    async pull(controller) {
      try {
        let batch = await next;
        while (!batch.done && batch.value.length === 0) batch = await batches.next();
        if (batch.done) {
          controller.enqueue(encoder.encode(separator === "[" ? "[]" : "]"));
          controller.close();
          return;
        }
        let chunk = "";
        for (const doc of batch.value) {
          if (chunk.length > 0 && chunk.length + doc.length >= STREAM_CHUNK_CHARS) {
            controller.enqueue(encoder.encode(chunk));
            chunk = "";
          }
          chunk += separator + doc;
          separator = ",";
        }
        if (chunk !== "") controller.enqueue(encoder.encode(chunk));
        // The next batch is read while this one goes out, and awaited by the next pull, which comes
        // once this batch's chunks have left the queue: an error discards the chunks still queued,
        // so a failure of the next batch awaited here dropped this whole batch, and a body that
        // fails before its first byte is the runtime's 500 (text, no X-Request-Id), not the cut
        // 200 the routes document (an outside audit, killing Postgres under E16 reads).
        next = batches.next();
        next.catch(() => {}); // handled by the next pull's await
      } catch (error) {
        if (cancelled) return;
        onAbort(error);
        controller.error(new Error(STREAM_ABORTED_MESSAGE));
      }
    },
    async cancel() {
      cancelled = true;
      await batches.return(undefined);
    },
  });
}

/**
 * What a streamed array's route description tells its clients about failures (an outside audit
 * found the cut-off undocumented).
 */
export const STREAM_FAILURE_NOTE =
  "The status line goes out once the first batch is read, so a database failure before it is 503 with Retry-After; one on a later batch cuts the body off before its closing `]` (the chunked transfer does not complete): treat a body that ends early as a failed request and retry it.";
