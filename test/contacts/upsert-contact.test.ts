import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Contact, ContactInput } from "../../src/schemas/contacts";
import { issueApiKey, revokeApiKey } from "../../src/services/auth/api-keys";
import { AUTH_CACHE_TTL_MS } from "../../src/services/auth/authenticate";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createRevokedKey, createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

const contactInput = (overrides: Partial<ContactInput> = {}): ContactInput => ({
  contactType: "MASTER",
  countryIso: "IT",
  email: `giulia.${crypto.randomUUID().slice(0, 8)}@example.com`,
  firstName: "Giulia",
  lastName: "Rossi",
  phoneNumber: "+39 055 123 4567",
  ...overrides,
});

const upsert = (key: string, body: unknown) => api("/v2/contacts", { key, body });

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

describe("E13 POST /v2/contacts: happy", () => {
  it("creates a contact and answers it with its id", async () => {
    const input = contactInput({ acceptedMarketing: true, otherData: { source: "fair" } });
    const response = await upsert(tenant.apiKey, input);
    expect(response.status).toBe(200);
    const contact = (await response.json()) as Contact;
    expect(contact).toMatchObject({ ...input, acceptedPrivacyTerms: false, unsubscribed: false });
    expect(Number.isSafeInteger(contact.id)).toBe(true);
  });

  it("updates the contact with the same lower(trim(email)) instead of creating another", async () => {
    const first = (await (
      await upsert(tenant.apiKey, contactInput({ acceptedMarketing: true }))
    ).json()) as Contact;
    const sameEmail = `  ${first.email.toUpperCase()}  `;
    const response = await upsert(
      tenant.apiKey,
      contactInput({ email: sameEmail, firstName: "Giulietta" }),
    );
    expect(response.status).toBe(200);
    const second = (await response.json()) as Contact;
    expect(second.id).toBe(first.id);
    expect(second.firstName).toBe("Giulietta");
    // Left out on the second call, so the stored consent stays.
    expect(second.acceptedMarketing).toBe(true);
  });

  it("takes back a contact it answered: null optional fields keep the stored values", async () => {
    const created = (await (
      await upsert(tenant.apiKey, contactInput({ unsubscribed: true }))
    ).json()) as Contact;
    expect(created.otherData).toBeNull();
    // The answer as it is (id and nulls included), with one change.
    const response = await upsert(tenant.apiKey, {
      ...created,
      firstName: "Giulietta",
      acceptedMarketing: null,
    });
    expect(response.status).toBe(200);
    const again = (await response.json()) as Contact;
    expect(again).toEqual({ ...created, firstName: "Giulietta" });
    // A new contact sent with nulls gets the defaults.
    const fresh = (await (
      await upsert(tenant.apiKey, { ...contactInput(), unsubscribed: null, otherData: null })
    ).json()) as Contact;
    expect(fresh).toMatchObject({ unsubscribed: false, otherData: null });
  });

  it("converges concurrent upserts of one person on one row", async () => {
    const input = contactInput();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        upsert(tenant.apiKey, { ...input, lastName: `Rossi ${i}` }),
      ),
    );
    const ids = new Set<number>();
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      ids.add(((await answer.json()) as Contact).id);
    }
    expect(ids.size).toBe(1);
  });

  it("answers 100 parallel requests correctly, each with its own contact", async () => {
    const inputs = Array.from({ length: 100 }, (_, i) =>
      contactInput({ firstName: `Parallel ${i}` }),
    );
    const answers = await Promise.all(inputs.map((input) => upsert(tenant.apiKey, input)));
    const contacts = await Promise.all(
      answers.map(async (a) => ({ status: a.status, body: (await a.json()) as Contact })),
    );
    contacts.forEach(({ status, body }, i) => {
      expect(status).toBe(200);
      expect(body).toMatchObject({ email: inputs[i]?.email, firstName: `Parallel ${i}` });
    });
    expect(new Set(contacts.map((c) => c.body.id)).size).toBe(100);
  });

  it("costs exactly one database round trip", async () => {
    await upsert(tenant.apiKey, contactInput()); // the key is verified once per isolate
    const { result, trips } = await countRoundTrips(() => upsert(tenant.apiKey, contactInput()));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E13 POST /v2/contacts: errors", () => {
  it.each([
    ["email", { email: "not-an-email" }],
    ["countryIso", { countryIso: "Italy" }],
    ["contactType", { contactType: "BOSS" }],
    ["firstName", { firstName: "" }],
    ["acceptedMarketing", { acceptedMarketing: "yes" }],
  ])("names the invalid field %s", async (path, override) => {
    const body = await expectProblem(
      await upsert(tenant.apiKey, { ...contactInput(), ...override }),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.errors?.map((e) => e.path)).toContain(path);
  });

  it("names every missing required field", async () => {
    const body = await expectProblem(await upsert(tenant.apiKey, {}), 400, "VALIDATION_ERROR");
    expect(body.errors?.map((e) => e.path).sort()).toEqual(
      ["contactType", "countryIso", "email", "firstName", "lastName", "phoneNumber"].sort(),
    );
  });

  it("answers MALFORMED_JSON for a body that is not JSON", async () => {
    const response = await api("/v2/contacts", {
      key: tenant.apiKey,
      method: "POST",
      rawBody: '{"email": ',
      headers: { "Content-Type": "application/json" },
    });
    await expectProblem(response, 400, "MALFORMED_JSON");
  });

  it("answers 415 for a body that is not declared JSON", async () => {
    const response = await api("/v2/contacts", {
      key: tenant.apiKey,
      method: "POST",
      rawBody: JSON.stringify(contactInput()),
      headers: { "Content-Type": "text/plain" },
    });
    await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers 413 for a body over 1 MiB and writes nothing", async () => {
    const input = contactInput({ otherData: { blob: "x".repeat(1024 * 1024) } });
    await expectProblem(await upsert(tenant.apiKey, input), 413, "PAYLOAD_TOO_LARGE");
    const again = (await (
      await upsert(tenant.apiKey, { ...input, otherData: undefined })
    ).json()) as Contact;
    expect(again.otherData).toBeNull();
  });
});

describe("E13 POST /v2/contacts: security", () => {
  it.each([
    ["no key", undefined],
    ["a malformed key", "not-a-key"],
    ["an unknown key", "wk_AAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"],
  ])("answers 401 with %s", async (_, key) => {
    await expectProblem(
      await api("/v2/contacts", { key, body: contactInput() }),
      401,
      "UNAUTHENTICATED",
    );
  });

  it("refuses a key revoked after use once the isolate's short verification cache has expired", async () => {
    // decisions.md: a revoked key stops working within 60 s everywhere. The only cache in front of
    // the lookup is this per-isolate one, so its lifetime is the bound.
    expect(AUTH_CACHE_TTL_MS).toBeLessThanOrEqual(60_000);
    const { key, id } = await issueApiKey(testDb(), tenant.wineryId, "revoke me");
    expect((await upsert(key, contactInput())).status).toBe(200);
    await revokeApiKey(testDb(), id);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + AUTH_CACHE_TTL_MS + 1);
      await expectProblem(await upsert(key, contactInput()), 401, "UNAUTHENTICATED");
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers 401 with a revoked key", async () => {
    const revoked = await createRevokedKey(tenant.wineryId);
    await expectProblem(await upsert(revoked, contactInput()), 401, "UNAUTHENTICATED");
  });

  it("keeps each winery's contacts apart: the same email is two contacts in two wineries", async () => {
    const other = await createTenant();
    const input = contactInput();
    const mine = (await (await upsert(tenant.apiKey, input)).json()) as Contact;
    const theirs = (await (
      await upsert(other.apiKey, { ...input, firstName: "Other" })
    ).json()) as Contact;
    expect(theirs.id).not.toBe(mine.id);
    const mineAgain = (await (await upsert(tenant.apiKey, input)).json()) as Contact;
    expect(mineAgain).toMatchObject({ id: mine.id, firstName: "Giulia" });
  });
});
