import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import type {
  Contact,
  ContactExportV2,
  ContactExportV3,
  ContactInput,
} from "../../src/schemas/contacts";
import {
  EXPORT_BATCH_SIZE,
  EXPORT_PART_BYTES,
  type ExportPart,
  exportBatchQuery,
} from "../../src/services/contacts/export-contacts";
import { api, expectProblem } from "../helpers/api";
import { createTenant, insertContacts, type TestTenant } from "../helpers/factories";
import { importedOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";

const testDatabase = () => createDatabase(env, () => {});

const routes = [
  ["E18", "/v2/contacts/query"],
  ["E17", "/v3/contacts/query"],
] as const;

const wide = { dateFrom: "2000-01-01T00:00:00Z", dateTo: "2100-01-01T00:00:00Z" };

async function exportAll<T>(path: string, key: string, range: unknown = wide): Promise<T[]> {
  const response = await api(path, { key, body: range });
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toContain("application/json");
  return (await response.json()) as T[];
}

let tenant: TestTenant;
let created: Contact;
beforeAll(async () => {
  tenant = await createTenant();
  const input: ContactInput = {
    contactType: "MASTER",
    countryIso: "FR",
    email: "Anne.Martin@example.com",
    firstName: "Anne",
    lastName: "Martin",
    phoneNumber: "+33 1 23 45 67 89",
    acceptedPrivacyTerms: true,
    manualMarketing: true,
  };
  created = (await (
    await api("/v2/contacts", { key: tenant.apiKey, body: input })
  ).json()) as Contact;
});

describe("E17/E18 contacts export: happy", () => {
  it("E18 answers the version 2 shape", async () => {
    const [contact, ...rest] = await exportAll<ContactExportV2>(
      "/v2/contacts/query",
      tenant.apiKey,
    );
    expect(rest).toEqual([]);
    expect(contact).toEqual({
      id: created.id,
      wineryId: tenant.wineryId,
      firstName: "Anne",
      lastName: "Martin",
      emails: [{ email: "Anne.Martin@example.com", master: true, type: "PRIMARY" }],
      phoneNumbers: [{ phone: "+33 1 23 45 67 89", type: "PRIMARY" }],
      addresses: [],
      cap: null,
      city: null,
      country: null,
      countryISO: "FR",
      dateOfBirth: null,
      languageISO: null,
      province: null,
    });
  });

  it("E17 adds the privacy flags and contactValue", async () => {
    const [contact] = await exportAll<ContactExportV3>("/v3/contacts/query", tenant.apiKey);
    expect(contact).toMatchObject({
      id: created.id,
      acceptedMarketing: false,
      acceptedPrivacyTerms: true,
      acceptedProfiling: false,
      manualMarketing: true,
      unsubscribed: false,
      contactValue: 0,
    });
  });

  it("E17 contactValue is what the contact has paid for the winery's orders, in currency units", async () => {
    const buyer = await createTenant();
    const email = `buyer.${crypto.randomUUID().slice(0, 8)}@example.com`;
    await api("/v2/contacts", {
      key: buyer.apiKey,
      body: {
        contactType: "MASTER",
        countryIso: "IT",
        email,
        firstName: "B",
        lastName: "Uyer",
        phoneNumber: "1",
      },
    });
    await importedOrder(buyer, { buyerEmail: ` ${email.toUpperCase()}`, amountCents: 1999 });
    await importedOrder(buyer, { buyerEmail: email, amountCents: 5001 });
    // E13 trims an email of any white space (tab, line break, no-break space); so does E1.
    const padded = await importedOrder(buyer, {
      buyerEmail: `\t${email}\u00a0\n`,
      amountCents: 1000,
    });
    expect(padded.buyerEmail).toBe(email);
    await importedOrder(buyer, { buyerEmail: "someone.else@example.com", amountCents: 100 });
    // The same email at another winery is another customer.
    await importedOrder(tenant, { buyerEmail: email, amountCents: 999 });
    // Cancelled orders are not paid, whichever storefront cancelled them (E1 or E19).
    await importedOrder(buyer, { buyerEmail: email, amountCents: 4000, status: "CANCELLED" });
    await api(`/v2/shopplugin/orders?tagName=pos&wineryId=${buyer.wineryId}`, {
      key: buyer.apiKey,
      body: JSON.stringify({
        id: "CANCELLED-1",
        buyerEmail: email,
        amountCents: 3000,
        status: "cancelled",
      }),
    });
    const [contact] = await exportAll<ContactExportV3>("/v3/contacts/query", buyer.apiKey);
    expect(contact?.contactValue).toBe(80);
  });

  it("walks the winery's contacts through the (winery_id, id) index", async () => {
    const query = { wineryId: tenant.wineryId, ...wide };
    // Without sequential scans the planner must still pick the winery-led index over the
    // primary key: the keyset then never reads other wineries' rows.
    const plan = await testDatabase().transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const result = await tx.execute<{ "QUERY PLAN": string }>(
        sql`explain ${exportBatchQuery(query, "v3", "0", EXPORT_BATCH_SIZE)}`,
      );
      return result.rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/contacts_winery_id_idx/);
  });

  it("receives a keyset batch as a few texts built by Postgres, in id order", async () => {
    const parts = await createTenant();
    await insertContacts(parts.wineryId, EXPORT_BATCH_SIZE + 5, new Date("2021-08-01T00:00:00Z"));
    const query = { wineryId: parts.wineryId, ...wide };
    const { rows } = await testDatabase().http.execute<ExportPart>(
      exportBatchQuery(query, "v3", "0", EXPORT_BATCH_SIZE),
    );
    // Not a row per contact, and not one text of the whole batch either (see EXPORT_PART_BYTES).
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.length).toBeLessThan(EXPORT_BATCH_SIZE / 20);
    const ids: number[] = [];
    for (const part of rows) {
      expect(new TextEncoder().encode(part.docs).length).toBeLessThan(2 * EXPORT_PART_BYTES);
      const docs = JSON.parse(`[${part.docs}]`) as { id: number }[];
      expect(docs).toHaveLength(part.count);
      expect(String(docs.at(-1)?.id)).toBe(part.last_id);
      ids.push(...docs.map((doc) => doc.id));
    }
    expect(ids).toHaveLength(EXPORT_BATCH_SIZE);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it.each(routes)("%s answers [] when nothing is in range", async (_, path) => {
    expect(
      await exportAll(path, tenant.apiKey, {
        dateFrom: "2001-01-01T00:00:00Z",
        dateTo: "2001-02-01T00:00:00Z",
      }),
    ).toEqual([]);
  });

  it.each(routes)("%s treats the range as [dateFrom, dateTo)", async (_, path) => {
    const other = await createTenant();
    await insertContacts(other.wineryId, 2, new Date("2020-03-01T10:00:00.000Z"));
    await insertContacts(other.wineryId, 3, new Date("2020-03-02T10:00:00.000Z"));
    const range = (dateFrom: string, dateTo: string) =>
      exportAll(path, other.apiKey, { dateFrom, dateTo });
    expect(await range("2020-03-01T10:00:00Z", "2020-03-02T10:00:00Z")).toHaveLength(2);
    expect(await range("2020-03-01T10:00:00.001Z", "2020-03-02T10:00:00.001Z")).toHaveLength(3);
    expect(await range("2020-03-01T12:00:00+02:00", "2020-03-03T00:00:00+02:00")).toHaveLength(5);
  });

  it.each(routes)("%s reads bounds finer than a microsecond exactly", async (_, path) => {
    const other = await createTenant();
    await insertContacts(other.wineryId, 2, new Date("2020-03-01T10:00:00.000Z"));
    await insertContacts(other.wineryId, 3, new Date("2020-03-01T10:00:00.001Z"));
    // Rounded to the nearest microsecond (as Postgres reads text), dateFrom admitted the first two
    // (0.4 ns before it) and dateTo excluded the last three (0.4 ns before it).
    expect(
      await exportAll(path, other.apiKey, {
        dateFrom: "2020-03-01T10:00:00.0000004Z",
        dateTo: "2020-03-01T10:00:00.0010004Z",
      }),
    ).toHaveLength(3);
  });

  it.each(routes)(
    "%s streams a large export in id order, one round trip per keyset batch",
    async (_, path) => {
      const bulk = await createTenant();
      const count = EXPORT_BATCH_SIZE * 2 + 17;
      await insertContacts(bulk.wineryId, count, new Date("2021-06-01T00:00:00Z"));
      const { result, trips } = await countRoundTrips(() =>
        exportAll<{ id: number }>(path, bulk.apiKey),
      );
      expect(result).toHaveLength(count);
      const ids = result.map((c) => c.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(trips).toEqual({ httpRequests: 3, wsSessions: 0 });
    },
  );

  it.each(routes)(
    "%s ends the array when the size is an exact multiple of the batch",
    async (_, path) => {
      const exact = await createTenant();
      await insertContacts(exact.wineryId, EXPORT_BATCH_SIZE, new Date("2021-07-01T00:00:00Z"));
      const response = await api(path, { key: exact.apiKey, body: wide });
      const text = await response.text();
      expect(text.endsWith("]")).toBe(true);
      expect(JSON.parse(text)).toHaveLength(EXPORT_BATCH_SIZE);
    },
  );

  it.each(routes)("%s costs one round trip for a small export", async (_, path) => {
    const { trips } = await countRoundTrips(() => exportAll(path, tenant.apiKey));
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E17/E18 contacts export: errors", () => {
  it.each(routes)("%s names a missing dateFrom", async (_, path) => {
    const body = await expectProblem(
      await api(path, { key: tenant.apiKey, body: { dateTo: wide.dateTo } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.errors?.map((e) => e.path)).toEqual(["dateFrom"]);
  });

  it.each(routes)("%s refuses a date-time without an offset", async (_, path) => {
    const response = await api(path, {
      key: tenant.apiKey,
      body: { ...wide, dateFrom: "2024-01-01T00:00:00" },
    });
    const body = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(body.errors?.map((e) => e.path)).toEqual(["dateFrom"]);
  });

  it.each(routes)("%s refuses dateTo before dateFrom", async (_, path) => {
    const response = await api(path, {
      key: tenant.apiKey,
      body: { dateFrom: wide.dateTo, dateTo: wide.dateFrom },
    });
    const body = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(body.errors?.map((e) => e.path)).toEqual(["dateTo"]);
  });

  it.each(routes)(
    "%s refuses dateTo a fraction of a millisecond before dateFrom",
    async (_, path) => {
      const response = await api(path, {
        key: tenant.apiKey,
        body: { dateFrom: "2024-01-01T00:00:00.0005Z", dateTo: "2024-01-01T00:00:00.0001Z" },
      });
      const body = await expectProblem(response, 400, "VALIDATION_ERROR");
      expect(body.errors?.map((e) => e.path)).toEqual(["dateTo"]);
    },
  );
});

describe("E17/E18 contacts export: security", () => {
  it.each(routes)("%s answers 401 without a key", async (_, path) => {
    await expectProblem(await api(path, { body: wide }), 401, "UNAUTHENTICATED");
  });

  it.each(routes)("%s never shows another winery's contacts", async (_, path) => {
    const other = await createTenant();
    await insertContacts(other.wineryId, 4, new Date("2022-01-01T00:00:00Z"));
    const mine = await exportAll<{ id: number; wineryId: string }>(path, tenant.apiKey);
    expect(mine.map((c) => c.id)).toEqual([created.id]);
    const theirs = await exportAll<{ wineryId: string }>(path, other.apiKey);
    expect(theirs).toHaveLength(4);
    expect(new Set(theirs.map((c) => c.wineryId))).toEqual(new Set([other.wineryId]));
  });
});
