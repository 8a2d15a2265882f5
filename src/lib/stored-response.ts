import type { IdempotentResult } from "../services/idempotency/idempotency";

/** An idempotent route's answer: the stored bytes, marked when they are a replay. */
export function storedResponse({ response, replayed }: IdempotentResult): Response {
  const headers = new Headers({ "Content-Type": "application/json; charset=utf-8" });
  if (replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(response.body, { status: response.status, headers });
}
