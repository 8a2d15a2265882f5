import { exports } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importedOrder } from "../helpers/orders";

/**
 * decisions.md "Hostile input": each of these is a 400 naming the field, never a 500, and the
 * database holds nothing from the request afterwards. Bodies are written as JSON text, because
 * some of them (a lone surrogate, 40 levels of nesting) are what a hostile client sends, not what
 * JSON.stringify makes of a JavaScript value.
 */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const unique = () => crypto.randomUUID().slice(0, 8);

interface WriteRoute {
  name: string;
  /** A valid body as JSON text, with `@FIELD@` where the hostile value goes (a JSON value). */
  send(tag: string, hostile: string): Promise<Response>;
  /** How many rows the request with this tag left in the database. */
  written(tag: string): Promise<number>;
  /** Where the hostile value sits, as errors[].path names it. */
  field: string;
}

const count = async (query: ReturnType<typeof sql>) =>
  Number(((await testDb().execute<{ n: string }>(query)).rows[0] as { n: string }).n);

/** A body of raw bytes under a given content type, which api() cannot send. */
const exportsFetch = (path: string, bytes: Uint8Array, contentType: string) =>
  exports.default.fetch(`http://api.test/api${path}`, {
    method: "POST",
    headers: { APIKey: tenant.apiKey, "Content-Type": contentType },
    body: bytes,
  });

const rawPost = (path: string, text: string, method = "POST") =>
  api(path, {
    method,
    key: tenant.apiKey,
    rawBody: text,
    headers: { "Content-Type": "application/json" },
  });

let experienceId: Promise<string> | undefined;
/** One experience of the tenant for the reservation routes, made on first use. */
const tenantExperience = () => {
  experienceId ??= createExperience(tenant).then((e) => e.id);
  return experienceId;
};
const reservationText = async (tag: string, field: string, hostile: string) =>
  `{"experienceId":"${await tenantExperience()}","date":"2027-01-01","time":"10:00","origin":"${tag}","reservationContacts":[{"contactType":"MASTER","countryIso":"IT","email":"${tag}@example.com","firstName":"G","lastName":"R","phoneNumber":"+39 1"}],"${field}":${hostile}}`;
const reservationsTagged = (tag: string) =>
  count(
    sql`select count(*) n from reservations where winery_id = ${tenant.wineryId} and origin = ${tag}`,
  );

const routes: WriteRoute[] = [
  {
    name: "E1 order import (notes)",
    field: "notes",
    send: (tag, hostile) =>
      rawPost(
        `/v4/order-import/${tenant.apiChannelKey}`,
        JSON.stringify(externalOrder({ id: tag })).replace(/}$/, `,"notes":${hostile}}`),
      ),
    written: (tag) =>
      count(
        sql`select count(*) n from orders where winery_id = ${tenant.wineryId} and external_id = ${tag}`,
      ),
  },
  {
    name: "E1 order import (extraMetadata, free-form)",
    field: "extraMetadata.x",
    send: (tag, hostile) =>
      rawPost(
        `/v4/order-import/${tenant.apiChannelKey}`,
        JSON.stringify({ ...externalOrder({ id: tag }), extraMetadata: undefined }).replace(
          /}$/,
          `,"extraMetadata":{"x":${hostile}}}`,
        ),
      ),
    written: (tag) =>
      count(
        sql`select count(*) n from orders where winery_id = ${tenant.wineryId} and external_id = ${tag}`,
      ),
  },
  {
    name: "E13 contact upsert (firstName)",
    field: "firstName",
    send: (tag, hostile) =>
      rawPost(
        "/v2/contacts",
        `{"contactType":"MASTER","countryIso":"IT","email":"${tag}@example.com","lastName":"Rossi","phoneNumber":"+39 1","firstName":${hostile}}`,
      ),
    written: (tag) =>
      count(
        sql`select count(*) n from contacts where winery_id = ${tenant.wineryId} and email = ${`${tag}@example.com`}`,
      ),
  },
  {
    name: "E13 contact upsert (otherData, free-form)",
    field: "otherData.x",
    send: (tag, hostile) =>
      rawPost(
        "/v2/contacts",
        `{"contactType":"MASTER","countryIso":"IT","email":"${tag}@example.com","firstName":"G","lastName":"Rossi","phoneNumber":"+39 1","otherData":{"x":${hostile}}}`,
      ),
    written: (tag) =>
      count(
        sql`select count(*) n from contacts where winery_id = ${tenant.wineryId} and email = ${`${tag}@example.com`}`,
      ),
  },
  {
    name: "E19 shop-plugin order (notes inside the document)",
    field: "notes",
    send: (tag, hostile) =>
      rawPost(
        `/v2/shopplugin/orders?tagName=pos&wineryId=${tenant.wineryId}`,
        JSON.stringify(`{"id":"${tag}","amountCents":100,"notes":${hostile}}`),
      ),
    written: (tag) =>
      count(
        sql`select count(*) n from orders where winery_id = ${tenant.wineryId} and external_id = ${tag}`,
      ),
  },
];

routes.push(
  {
    name: "E11 reservation import (message)",
    field: "message",
    send: async (tag, hostile) =>
      rawPost("/v2/reservations/import/NEW", await reservationText(tag, "message", hostile), "PUT"),
    written: reservationsTagged,
  },
  {
    name: "E11 reservation import (otherData, free-form)",
    field: "otherData.x",
    send: async (tag, hostile) =>
      rawPost(
        "/v2/reservations/import/NEW",
        await reservationText(tag, "otherData", `{"x":${hostile}}`),
        "PUT",
      ),
    written: reservationsTagged,
  },
  {
    name: "E14 reservation refund (amountCents)",
    field: "amountCents",
    send: (_, hostile) =>
      rawPost(`/v2/reservations/${crypto.randomUUID()}/refund`, `{"amountCents":${hostile}}`),
    written: () =>
      count(sql`select count(*) n from reservation_refunds where winery_id = ${tenant.wineryId}`),
  },
  {
    name: "E16 reservation query (lang)",
    field: "lang",
    send: (_, hostile) => rawPost("/v2/reservations/query", `{"lang":${hostile}}`),
    // A query writes nothing; the row count guards against a 200 that streamed anyway.
    written: reservationsTagged,
  },
);

const hostileValues: [string, (field: string) => string, string][] = [
  ["a NUL character", () => '"a\\u0000b"', "NUL"],
  ["a lone surrogate", () => '"\\ud800x"', "surrogate"],
  ["nesting past 32 levels", () => deep(40), "nested deeper than 32"],
  // Numbers JSON.parse would change: stored, they would not be what was sent.
  ["an integer a double rounds", () => "12345678901234567890", "past 2^53"],
  ["a number past the largest double", () => "-1e400", "past the largest"],
  ["a non-zero number below the smallest double", () => "1e-400", "below 5e-324"],
];

describe.each(routes)("$name", (route) => {
  it.each(hostileValues)(
    "refuses %s with 400 naming the field, writing nothing",
    async (_, value, hint) => {
      const tag = `HOSTILE-${unique()}`;
      const problem = await expectProblem(
        await route.send(tag, value(route.field)),
        400,
        "VALIDATION_ERROR",
      );
      const paths = problem.errors?.map((e) => e.path) ?? [];
      expect(paths.some((p) => p.startsWith(route.field.split(".")[0] as string))).toBe(true);
      expect(problem.errors?.map((e) => e.message).join(" ")).toContain(hint);
      expect(await route.written(tag)).toBe(0);
    },
  );

  it("refuses a NUL inside an object key, naming the key", async () => {
    const tag = `HOSTILE-${unique()}`;
    const problem = await expectProblem(
      await route.send(tag, '{"k\\u0000ey": 1}'),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.message).toContain("NUL");
    expect(await route.written(tag)).toBe(0);
  });
});

describe("date-times and dates outside the years 0001..9999", () => {
  it.each([
    ["9999-12-31T23:59:59-14:00", "sourceSyncedAt"],
    ["0000-12-31T23:59:59Z", "sourceSyncedAt"],
    ["0001-01-01T00:30:00+01:00", "sourceSyncedAt"],
  ])("E1 refuses sourceSyncedAt %s", async (value, field) => {
    const tag = `DATE-${unique()}`;
    const response = await api(`/v4/order-import/${tenant.apiChannelKey}`, {
      key: tenant.apiKey,
      body: externalOrder({ id: tag, sourceSyncedAt: value }),
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(field);
  });

  it.each(["0000-01-01", "2026-02-30"])("E1 refuses the date %s", async (date) => {
    const response = await api(`/v4/order-import/${tenant.apiChannelKey}`, {
      key: tenant.apiKey,
      body: externalOrder({ id: `DATE-${unique()}`, date }),
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain("date");
  });

  it("names a text that is no date-time once, without the range errors that would follow", async () => {
    for (const dateFrom of ["2000-01-01T25:00:00Z", "+010000-01-01T00:00:00Z"]) {
      const response = await api("/v3/contacts/query", {
        key: tenant.apiKey,
        body: { dateFrom, dateTo: "2000-01-02T00:00:00Z" },
      });
      const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toEqual(["dateFrom"]);
    }
  });

  it("refuses fractions of a second finer than nanoseconds, which V8 would misread", async () => {
    const response = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: { dateFrom: "2000-01-01T00:00:00.0019999999Z", dateTo: "2000-01-02T00:00:00Z" },
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([
      { path: "dateFrom", message: "must have at most 9 digits of fractional seconds" },
    ]);
    const nanos = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: { dateFrom: "2000-01-01T00:00:00.001999999Z", dateTo: "2000-01-02T00:00:00Z" },
    });
    expect(nanos.status).toBe(200);
  });

  it("E2 refuses expectedUpdatedAt in year 10000 UTC, and E17 a dateFrom in year 0", async () => {
    const order = await importedOrder(tenant);
    const e2 = await api(`/v4/orders/${order.id}`, {
      method: "PUT",
      key: tenant.apiKey,
      body: { expectedUpdatedAt: "9999-12-31T23:59:59-14:00", notes: "x" },
    });
    expect((await expectProblem(e2, 400, "VALIDATION_ERROR")).errors?.[0]?.path).toBe(
      "expectedUpdatedAt",
    );
    const e17 = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: { dateFrom: "0000-12-31T23:59:59Z", dateTo: "2026-01-01T00:00:00Z" },
    });
    expect((await expectProblem(e17, 400, "VALIDATION_ERROR")).errors?.[0]?.path).toBe("dateFrom");
  });
});

describe("money that overflows or goes negative", () => {
  it.each([
    [
      "unit price × quantity over 2^53",
      {
        items: [{ sku: "X", unitPriceCents: 2_147_483_647, quantity: 2 ** 23 }],
        amountCents: undefined,
        totals: undefined,
      },
      "items[0].unitPriceCents",
    ],
    ["a negative totals.totalCents", { totals: { totalCents: -1 } }, "totals.totalCents"],
    [
      "an amount past the safe-integer range",
      { amountDiscountCents: 2 ** 54 },
      "amountDiscountCents",
    ],
  ])("E1 refuses %s, naming the field", async (_, overrides, path) => {
    const tag = `MONEY-${unique()}`;
    const response = await api(`/v4/order-import/${tenant.apiChannelKey}`, {
      key: tenant.apiKey,
      body: externalOrder({ id: tag, ...(overrides as object) }),
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("path and query values", () => {
  it("refuses a NUL in the E1 channel key, naming the parameter", async () => {
    const response = await api("/v4/order-import/web%00shop", {
      key: tenant.apiKey,
      body: externalOrder(),
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    // Named bare, as the interface names it; the message says where it is.
    expect(problem.errors?.[0]?.path).toBe("apiChannelKey");
    expect(problem.errors?.[0]?.message).toMatch(/\(path parameter\)$/);
  });

  it("refuses a NUL in a query value, naming it", async () => {
    const response = await api(`/v2/shopplugin/orders?tagName=po%00s&wineryId=${tenant.wineryId}`, {
      key: tenant.apiKey,
      body: JSON.stringify({ id: "A", amountCents: 1 }),
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.path).toBe("tagName");
    expect(problem.errors?.[0]?.message).toMatch(/\(query parameter\)$/);
  });
});

describe("text that is not UTF-8", () => {
  it("refuses a path parameter that is not percent-encoded UTF-8, naming it", async () => {
    for (const code of ["%ED%A0%80", "%FF", "a%E2%82"]) {
      const response = await api(`/v2/coupons/${code}`, {
        method: "PUT",
        key: tenant.apiKey,
        body: { discountType: "percent", discountPercent: 5 },
      });
      const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toEqual(["code"]);
    }
    // The literal text "%FF" is a code like any other, sent encoded.
    const literal = await api("/v2/coupons/%25FF", { key: tenant.apiKey });
    await expectProblem(literal, 404, "NOT_FOUND");
  });

  it("refuses a query value or name that is not percent-encoded UTF-8, naming it", async () => {
    // The second one hides the broken part behind a second "=".
    for (const tagName of ["%ED%A0%80", "pos=%FF"]) {
      const response = await api(
        `/v2/shopplugin/orders?tagName=${tagName}&wineryId=${tenant.wineryId}`,
        { key: tenant.apiKey, body: JSON.stringify({ id: "A", amountCents: 1 }) },
      );
      const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toEqual(["tagName"]);
    }
  });

  it("refuses a body whose bytes are not UTF-8 as MALFORMED_JSON, storing nothing", async () => {
    const email = `latin-${unique()}@example.com`;
    const head = `{"contactType":"MASTER","countryIso":"IT","email":"${email}","firstName":"A`;
    const tail = `Z","lastName":"B","phoneNumber":"1"}`;
    const bytes = new Uint8Array([
      ...new TextEncoder().encode(head),
      0xff,
      0xfe,
      ...new TextEncoder().encode(tail),
    ]);
    const response = await exportsFetch("/v2/contacts", bytes, "application/json");
    const problem = await expectProblem(response, 400, "MALFORMED_JSON");
    expect(problem.detail).toContain("UTF-8");
    expect(await count(sql`select count(*) as n from contacts where email = ${email}`)).toBe(0);
  });

  it("answers 415 for a JSON body declared in another charset, and takes UTF-8 however it is written", async () => {
    const body = new TextEncoder().encode(
      '{"dateFrom":"2000-01-01T00:00:00Z","dateTo":"2000-01-02T00:00:00Z"}',
    );
    for (const type of [
      "application/json; charset=utf-16",
      "application/json; charset=iso-8859-1",
    ]) {
      await expectProblem(
        await exportsFetch("/v3/contacts/query", body, type),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    }
    for (const type of [
      'application/json; charset="UTF-8"',
      "application/json;charset=utf8",
      // RFC 9110's grammar (OWS around ";", empty parameters), which the route's own gate in
      // @hono/zod-openapi does not take: the body middleware hands it on rewritten.
      "application/json ; charset=utf-8",
      "application/json;",
      "application/json;charset=utf-8;",
      "APPLICATION/JSON ;",
    ]) {
      const response = await exportsFetch("/v3/contacts/query", body, type);
      expect(response.status, type).toBe(200);
      expect(await response.json()).toEqual([]);
    }
  });
});

describe("arrays past 1,000 elements", () => {
  it("are refused anywhere in a body, free-form objects and unknown fields included", async () => {
    const many = Array.from({ length: 1001 }, (_, i) => i);
    const query = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: { dateFrom: "2000-01-01T00:00:00Z", dateTo: "2000-01-02T00:00:00Z", junk: many },
    });
    const problem = await expectProblem(query, 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([{ path: "junk", message: "must hold at most 1000 elements" }]);

    const email = `many-${unique()}@example.com`;
    const contact = await api("/v2/contacts", {
      key: tenant.apiKey,
      body: {
        contactType: "MASTER",
        countryIso: "IT",
        email,
        firstName: "A",
        lastName: "B",
        phoneNumber: "1",
        otherData: { list: many },
      },
    });
    const refused = await expectProblem(contact, 400, "VALIDATION_ERROR");
    expect(refused.errors?.map((e) => e.path)).toEqual(["otherData.list"]);
    expect(await count(sql`select count(*) as n from contacts where email = ${email}`)).toBe(0);

    const exactly = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: {
        dateFrom: "2000-01-01T00:00:00Z",
        dateTo: "2000-01-02T00:00:00Z",
        junk: many.slice(1),
      },
    });
    expect(exactly.status).toBe(200);
  });
});

describe("free-form objects keep every key as sent", () => {
  it("stores and answers __proto__ and constructor keys (E13 otherData, E1 userMetadata)", async () => {
    const email = `proto-${unique()}@example.com`;
    const response = await rawPost(
      "/v2/contacts",
      `{"contactType":"MASTER","countryIso":"IT","email":"${email}","firstName":"G","lastName":"R","phoneNumber":"1","otherData":{"__proto__":{"polluted":true},"constructor":"c","a":1}}`,
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"__proto__":{"polluted":true}');
    expect(text).toContain('"constructor":"c"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const tag = `PROTO-${unique()}`;
    const order = await rawPost(
      `/v4/order-import/${tenant.apiChannelKey}`,
      JSON.stringify({ ...externalOrder({ id: tag }), userMetadata: undefined }).replace(
        /}$/,
        ',"userMetadata":{"__proto__":{"x":1}}}',
      ),
    );
    expect(order.status).toBe(200);
    expect(await order.text()).toContain('"userMetadata":{"__proto__":{"x":1}}');
  });
});

describe("free-form objects keep their numbers as sent", () => {
  it("stores numbers a double holds exactly, and refuses the ones it would change, naming them", async () => {
    const tag = `NUMBERS-${unique()}`;
    // Integers as JavaScript writes doubles (2^60 is 1152921504606847000) come back as sent; a
    // fraction's extra digits are how floats are written; a 20-digit number inside a string is text.
    const kept = await rawPost(
      `/v4/order-import/${tenant.apiChannelKey}`,
      JSON.stringify(externalOrder({ id: tag })).replace(
        /}$/,
        ',"extraMetadata":{"a":1152921504606847000,"b":-9007199254740994,"c":0.30000000000000001,"d":"12345678901234567890","e":1e-300,"f":0E-400,"g":123456789012345680000,"h":-1000000000000000000000}}',
      ),
    );
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as { extraMetadata: unknown }).extraMetadata).toEqual({
      a: 2 ** 60,
      b: -(2 ** 53 + 2),
      c: 0.3,
      d: "12345678901234567890",
      e: 1e-300,
      f: 0,
      // As JSON.stringify writes these doubles: kept as sent.
      g: 123456789012345680000,
      h: -1e21,
    });

    const refused = await rawPost(
      `/v4/order-import/${tenant.apiChannelKey}`,
      JSON.stringify(externalOrder({ id: `${tag}-2` })).replace(
        /}$/,
        ',"extraMetadata":{"ok":1,"big":12345678901234567890,"list":[1,9007199254740993,1152921504606846976],"tiny":-2.5e-400,"huge":1e400}}',
      ),
    );
    const problem = await expectProblem(refused, 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path).sort()).toEqual([
      "extraMetadata.big",
      "extraMetadata.huge",
      "extraMetadata.list[1]",
      // 2^60 exactly: it would come back as 1152921504606847000.
      "extraMetadata.list[2]",
      "extraMetadata.tiny",
    ]);
    const stored = await testDb().execute(
      sql`select count(*)::int n from orders where winery_id = ${tenant.wineryId} and external_id = ${`${tag}-2`}`,
    );
    expect(stored.rows[0]).toEqual({ n: 0 });
  });
});

describe("maps keyed by free text keep a __proto__ key as sent", () => {
  /** The map's entries, so an own `__proto__` key is compared like any other. */
  const entries = (map: unknown) => Object.entries(map as Record<string, unknown>);

  it("E8/PUT experiences: text maps and the price extras and labels", async () => {
    const id = crypto.randomUUID();
    const response = await rawPost(
      `/v2/experiences/${id}`,
      `{"active":true,"maxParties":10,"titleTranslations":{"__proto__":"P","en":"Tour"},"experiencePriceExtrasAttributes":{"__proto__":{"priceCents":500,"titleTranslations":{"__proto__":"X"}}},"experiencePriceLabelsAttributes":{"__proto__":{"priceCents":100}}}`,
      "PUT",
    );
    expect(response.status).toBe(200);
    const read = (await (await api(`/v2/experiences/${id}`, { key: tenant.apiKey })).json()) as {
      titleTranslations: unknown;
      experiencePriceExtrasAttributes: Record<string, { titleTranslations: unknown }>;
      experiencePriceLabelsAttributes: unknown;
    };
    expect(entries(read.titleTranslations)).toEqual(
      expect.arrayContaining([
        ["__proto__", "P"],
        ["en", "Tour"],
      ]),
    );
    const extras = entries(read.experiencePriceExtrasAttributes);
    expect(extras.map(([key]) => key)).toEqual(["__proto__"]);
    const extra = extras[0]?.[1] as { priceCents: number; titleTranslations: unknown } | undefined;
    expect(extra).toMatchObject({ priceCents: 500 });
    expect(entries(extra?.titleTranslations ?? {})).toEqual([["__proto__", "X"]]);
    expect(entries(read.experiencePriceLabelsAttributes)).toEqual([
      ["__proto__", expect.objectContaining({ priceCents: 100 })],
    ]);
  });

  it.each([
    ["titleTranslations.__proto__", '"titleTranslations":{"__proto__":1}'],
    [
      "experiencePriceExtrasAttributes.__proto__.priceCents",
      '"experiencePriceExtrasAttributes":{"__proto__":{"priceCents":"x"}}',
    ],
    [
      "experiencePriceLabelsAttributes.__proto__",
      '"experiencePriceLabelsAttributes":{"__proto__":[]}',
    ],
  ])("an invalid __proto__ entry is a 400 naming %s", async (path, member) => {
    const problem = await expectProblem(
      await rawPost(
        "/v2/experiences/preview-propagation",
        `{"active":true,"maxParties":10,${member}}`,
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual([path]);
  });

  it("the document still describes them as plain maps", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const { schemas } = doc.components;
    // E6 takes a null `names` as left out.
    expect(schemas.UpsertAttributeRequest?.properties.names).toMatchObject({
      type: ["object", "null"],
      additionalProperties: { type: "string", maxLength: 500 },
      propertyNames: { minLength: 1, maxLength: 35 },
    });
    expect(schemas.ExperienceAllParamsInput?.properties.experiencePriceExtrasAttributes).toEqual({
      type: ["object", "null"],
      additionalProperties: { $ref: "#/components/schemas/ExperiencePriceExtras" },
    });
  });

  it("E9 validates a __proto__ option like any other", async () => {
    const problem = await expectProblem(
      await rawPost(
        "/v2/availabilities/actions",
        `{"requests":[{"action":"DELETE","slotId":"${crypto.randomUUID()}","options":{"__proto__":"yes"}}]}`,
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["requests[0].options.__proto__"]);
  });

  it("E9 refuses a __proto__ week day as it refuses any other unknown day", async () => {
    const problem = await expectProblem(
      await rawPost(
        "/v2/availabilities/actions",
        `{"requests":[{"action":"DELETE","slotId":"${crypto.randomUUID()}","weekDays":{"__proto__":true,"MONDAY":true}}]}`,
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["requests[0].weekDays.__proto__"]);
  });
});
