/**
 * Secrets at rest (integration auth tokens): AES-256-GCM through Web Crypto, under a key held as
 * a Worker secret (INTEGRATIONS_KEY: 32 random bytes, base64; `wrangler secret put
 * INTEGRATIONS_KEY`, locally `.dev.vars`, in tests a binding of vitest.config.ts). Every sealed
 * value has its own random 96-bit IV and is bound to a context (the owning winery) as additional
 * data, so a ciphertext copied onto another winery's row does not open.
 * Format: "v1:" + base64(iv || ciphertext+tag).
 */

const VERSION = "v1:";
type AesKey = ReturnType<typeof crypto.subtle.importKey>;
const keys = new Map<string, AesKey>();

function importKey(base64Key: string): AesKey {
  let key = keys.get(base64Key);
  if (!key) {
    const raw = fromBase64(base64Key);
    if (raw.length !== 32) throw new Error("INTEGRATIONS_KEY must be 32 bytes, base64-encoded");
    key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(base64Key, key);
  }
  return key;
}

const encoder = new TextEncoder();

export async function sealSecret(base64Key: string, plaintext: string, context: string) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await importKey(base64Key),
    encoder.encode(plaintext),
  );
  const out = new Uint8Array(iv.length + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.length);
  return VERSION + toBase64(out);
}

export async function openSecret(base64Key: string, sealed: string, context: string) {
  if (!sealed.startsWith(VERSION)) throw new Error("unknown sealed-secret format");
  const bytes = fromBase64(sealed.slice(VERSION.length));
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: encoder.encode(context) },
    await importKey(base64Key),
    bytes.slice(12),
  );
  return new TextDecoder().decode(plain);
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A plain loop: Uint8Array.from with a mapping callback calls it once per byte. */
function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
