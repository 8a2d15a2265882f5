import { describe, expect, it } from "vitest";
import {
  apiKeyPrefix,
  constantTimeEqual,
  generateApiKey,
  hashApiKey,
} from "../../src/services/auth/api-key-crypto";

describe("API key crypto", () => {
  it("hashes with SHA-256, hex encoded", async () => {
    // The published SHA-256 test vector for "abc".
    expect(await hashApiKey("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it.each(["", "\u20ac", "wk_AAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "\u{1F377}".repeat(40)])(
    "hashes %j as UTF-8, every byte as two lowercase hex digits",
    async (text) => {
      const bytes = new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
      );
      const expected = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      expect(await hashApiKey(text)).toBe(expected);
    },
  );

  it("hashes the empty text to the published vector", async () => {
    expect(await hashApiKey("")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });

  it("generates well-formed, distinct keys whose hash is stored, not the key", async () => {
    const a = await generateApiKey();
    const b = await generateApiKey();
    expect(a.key).toMatch(/^wk_[0-9A-Za-z]{10}_[0-9A-Za-z]{32}$/);
    expect(a.key).not.toBe(b.key);
    expect(apiKeyPrefix(a.key)).toBe(a.prefix);
    expect(a.keyHash).toBe(await hashApiKey(a.key));
    expect(a.keyHash).not.toContain(a.key.slice(14));
  });

  it.each([
    "",
    "wk_short_x",
    "xx_AAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
    "wk_AAAAAAAAAA_BBBB BBBBBBBBBBBBBBBBBBBBBBBBBBB",
  ])("finds no prefix in the malformed key %j", (key) => {
    expect(apiKeyPrefix(key)).toBeUndefined();
  });

  it("compares digests exactly, whatever their lengths", () => {
    expect(constantTimeEqual("abcd", "abcd")).toBe(true);
    expect(constantTimeEqual("abcd", "abce")).toBe(false);
    expect(constantTimeEqual("abcd", "abc")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});
