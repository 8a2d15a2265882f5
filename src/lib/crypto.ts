/** Every byte's two lowercase hex digits, built once. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/**
 * SHA-256 of UTF-8 text as lowercase hex; Web Crypto, so it runs in the Worker and in Node. On
 * every authenticated request (the key cache is keyed by the hash), so the hex is one table lookup
 * per byte rather than a spread, a callback and a padStart each.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
