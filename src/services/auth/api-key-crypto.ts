/**
 * API key format: `wk_<prefix>_<secret>`. The prefix (10 base62 characters) is stored in clear to
 * find the row and to show in listings; the whole key is stored only as its SHA-256 hash.
 * Web Crypto only, so the same code runs in the Worker and in the Node scripts.
 */
import { sha256Hex } from "../../lib/crypto";

const KEY_PATTERN = /^wk_([0-9A-Za-z]{10})_([0-9A-Za-z]{32})$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly likely.
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface NewApiKey {
  key: string;
  prefix: string;
  keyHash: string;
}

export async function generateApiKey(): Promise<NewApiKey> {
  const prefix = randomBase62(10);
  const key = `wk_${prefix}_${randomBase62(32)}`;
  return { key, prefix, keyHash: await hashApiKey(key) };
}

/** The prefix of a well-formed key, or undefined: malformed keys never reach the database. */
export function apiKeyPrefix(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/** Compares two hex digests in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  }
  return diff === 0;
}
