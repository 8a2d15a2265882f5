// db:migrate reports what it applied; a migration that changes rows changes them as it says; npm
// run seed twice adds no rows and replaces its key.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "../../scripts/commands/lib/paths";
import { DEMO_WINERY_ID, DEV_KEY_NAME, replaceSeedKey } from "../../scripts/commands/lib/seed-data";
import { applyMigrations } from "../../scripts/local-db";
import { createDatabase } from "../../src/db/client";
import * as schema from "../../src/db/schema";
import { UnauthenticatedError } from "../../src/lib/errors";
import { authenticate } from "../../src/services/auth/authenticate";
import { listProducts } from "../../src/services/catalogue/list-products";
import { queryReservations } from "../../src/services/reservations/query-reservations";
import { type LocalStack, runCommand, startLocalStack } from "./helpers";

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack();
});
afterAll(() => stack?.close());

function databaseUrl(name: string): string {
  const url = new URL(stack.postgres.connectionString);
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: stack.postgres.connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe("npm run db:migrate", () => {
  it("lists the migrations it applied, then says that nothing is pending", async () => {
    await query("create database fresh");
    const env = { DATABASE_URL: databaseUrl("fresh") };
    const first = await runCommand("migrate", [], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^db:migrate: applied 0000_init, 0001_[a-z_]+, .* to DATABASE_URL \(127\.0\.0\.1:\d+\/fresh\)\n$/,
    );
    const second = await runCommand("migrate", [], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(
      `db:migrate: nothing pending on DATABASE_URL (127.0.0.1:${stack.postgres.port}/fresh)\n`,
    );
  });

  it("refuses a database that does not exist, in one line", async () => {
    const { code, stderr } = await runCommand("migrate", [], {
      DATABASE_URL: databaseUrl("no_such_db"),
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `db:migrate: cannot use DATABASE_URL (127.0.0.1:${stack.postgres.port}/no_such_db): database "no_such_db" does not exist (SQLSTATE 3D000)`,
    );
  });
});

// The rows a migration changes are written before it: the migrations up to its predecessor from a
// copy of drizzle/ whose journal ends there, then the whole folder, as a deploy applies it.
async function migrateUpTo(url: string, lastTag: string) {
  const folder = await mkdtemp(join(tmpdir(), "migrations-"));
  try {
    await cp(MIGRATIONS_DIR, folder, { recursive: true });
    const path = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(await readFile(path, "utf8")) as { entries: { tag: string }[] };
    const end = journal.entries.findIndex((entry) => entry.tag === lastTag);
    expect(end).toBeGreaterThanOrEqual(0);
    journal.entries = journal.entries.slice(0, end + 1);
    await writeFile(path, JSON.stringify(journal));
    await applyMigrations(url, folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

describe("migration 0013_orders_totals_members", () => {
  it("gives the totals stored before all seven Totals members, keeping values, nulls and updated_at", async () => {
    await query("create database totals_before");
    const url = databaseUrl("totals_before");
    await migrateUpTo(url, "0012_slot_key_deferrable");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const [winery] = (
        await client.query<{ id: string }>("insert into wineries (name) values ('W') returning id")
      ).rows;
      // As E1 stored them (the members sent), E19's WooCommerce mapping (five), and no totals.
      const stored: [string, string | null][] = [
        ["e1", '{"totalCents": 100, "discounts": {"__proto__": 1}}'],
        [
          "woo",
          '{"subtotalCents": 1, "discountCents": 2, "shipmentCents": 3, "taxCents": 4, "totalCents": 5}',
        ],
        ["none", null],
      ];
      for (const [externalId, totals] of stored) {
        await client.query(
          `insert into orders (winery_id, plugin_tag, external_id, amount_cents, order_date, totals,
             created_at, updated_at)
           values ($1, 'shop', $2, 0, '2026-01-01', $3::jsonb, '2026-01-01T10:00:00.123Z',
             '2026-01-02T10:00:00.456Z')`,
          [winery?.id, externalId, totals],
        );
      }

      expect(await applyMigrations(url, MIGRATIONS_DIR)).toContain("0013_orders_totals_members");

      const { rows } = await client.query<{ id: string; totals: string | null; updated: string }>(
        `select external_id as id, totals::text as totals,
           to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') as updated
         from orders order by external_id`,
      );
      const none = {
        discountCents: null,
        discounts: null,
        extraMetadata: null,
        shipmentCents: null,
        subtotalCents: null,
        taxCents: null,
        totalCents: null,
      };
      expect(rows.map((row) => ({ ...row, totals: row.totals && JSON.parse(row.totals) }))).toEqual(
        [
          {
            id: "e1",
            totals: { ...none, totalCents: 100, discounts: JSON.parse('{"__proto__":1}') },
            updated: "2026-01-02T10:00:00.456",
          },
          { id: "none", totals: null, updated: "2026-01-02T10:00:00.456" },
          {
            id: "woo",
            totals: {
              ...none,
              subtotalCents: 1,
              discountCents: 2,
              shipmentCents: 3,
              taxCents: 4,
              totalCents: 5,
            },
            updated: "2026-01-02T10:00:00.456",
          },
        ],
      );
      expect(rows[0]?.totals).toContain('"discounts": {"__proto__": 1}');
    } finally {
      await client.end();
    }
  });
});

let lastSeedLog = "";
async function seed() {
  const { code, stdout, stderr } = await runCommand("seed", [], {
    DATABASE_URL: stack.postgres.connectionString,
  });
  expect(code).toBe(0);
  lastSeedLog = stderr;
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last) as Record<string, unknown>;
}

const database = () =>
  createDatabase(
    {
      DATABASE_URL: stack.postgres.connectionString,
      NEON_HTTP_ENDPOINT: stack.neon.httpEndpoint,
      NEON_WS_PROXY: stack.neon.wsProxy,
    },
    () => {},
  );
const http = () => database().http;

describe("npm run seed, twice", () => {
  const counts = () =>
    query<{
      contacts: number;
      reservations: number;
      refunds: number;
      orders: number;
      receipts: number;
      keys: number;
    }>(
      `select (select count(*)::int from contacts) as contacts,
              (select count(*)::int from reservations) as reservations,
              (select count(*)::int from reservation_refunds) as refunds,
              (select count(*)::int from orders) as orders,
              (select count(*)::int from receipts) as receipts,
              (select count(*)::int from api_keys) as keys`,
    ).then((rows) => rows[0]);

  it("adds no rows the second time, prints a working key each time and kills the earlier one", async () => {
    const first = await seed();
    expect(first).toEqual({
      wineryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      apiChannelKey: "demo-webshop",
      apiKey: expect.stringMatching(/^wk_/),
      orderId: expect.any(Number),
      // Each area's demo data answers the ids an integrator tries its endpoints with.
      couponCode: "WELCOME10",
      commerceSessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      productId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customerClassId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      attributeId: expect.any(Number),
      fileId: expect.any(Number),
      experienceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slotId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      reservationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const afterFirst = await counts();
    expect(afterFirst).toMatchObject({ keys: 1, refunds: 1 });
    expect(afterFirst?.reservations).toBeGreaterThan(0);
    expect(afterFirst?.contacts).toBeGreaterThan(0);
    expect(afterFirst?.orders).toBeGreaterThan(0);
    const principal = await authenticate(http(), first.apiKey as string);
    expect(principal.wineryId).toBe(first.wineryId);
    // Every contact it adds is reported: the 24 demo contacts, then the 6 guests of the demo
    // reservations (E11 upserts a reservation's contacts), 30 in all.
    expect(afterFirst?.contacts).toBe(30);
    expect(lastSeedLog).toMatch(/^seed: contacts: 24 new, of the 24 demo contacts$/m);
    expect(lastSeedLog).toMatch(
      /^seed: reservations: 6 new, 6 in all; their guests: 6 new contacts, 30 contacts in all; \{/m,
    );
    // The first key replaces none.
    expect(lastSeedLog).toMatch(/issued an API key for the demo winery\n/);
    expect(lastSeedLog).not.toMatch(/previous one/);
    // The session as a replace (E3) left it: one item, version 2. The seed must not put the
    // demo's items back behind its version.
    await query("delete from commerce_session_items where session_id = $1 and position > 0", [
      first.commerceSessionId,
    ]);
    await query("update commerce_sessions set version = 2 where id = $1", [
      first.commerceSessionId,
    ]);

    const second = await seed();
    expect(lastSeedLog).toMatch(/the previous one of npm run seed no longer works/);
    expect(lastSeedLog).toMatch(/^seed: contacts: 0 new, of the 24 demo contacts$/m);
    expect(lastSeedLog).toMatch(
      /^seed: reservations: 0 new, 6 in all; their guests: 0 new contacts, 30 contacts in all; \{/m,
    );
    expect(
      await query<{ items: number; version: number }>(
        `select (select count(*)::int from commerce_session_items where session_id = $1) as items,
                (select version from commerce_sessions where id = $1) as version`,
        [first.commerceSessionId],
      ),
    ).toEqual([{ items: 1, version: 2 }]);
    expect(second.apiKey).not.toBe(first.apiKey);
    expect({ ...second, apiKey: "" }).toEqual({ ...first, apiKey: "" });
    expect(await counts()).toEqual(afterFirst);
    await expect(authenticate(http(), second.apiKey as string)).resolves.toMatchObject({
      wineryId: first.wineryId,
    });
    // Past the per-isolate cache of verified keys, the first key is refused.
    const later = Date.now() + 60_000;
    await expect(authenticate(http(), first.apiKey as string, later)).rejects.toBeInstanceOf(
      UnauthenticatedError,
    );
  });

  it("puts the demo Brunello back when a PUT left it without files, so that fileId is printed again", async () => {
    const before = await seed();
    // What PUT /v2/product-catalog/products/{id} without files leaves (an outside audit).
    await query("delete from product_files where product_id = $1", [before.productId]);
    const after = await seed();
    expect(after.fileId).toEqual(expect.any(Number));
    expect(
      await query<{ n: number }>(
        "select count(*)::int as n from product_files where product_id = $1",
        [before.productId],
      ),
    ).toEqual([{ n: 2 }]);
  });

  it("leaves npm run dev's key alone, and a start of npm run dev leaves the seed's", async () => {
    const seeded = await seed();
    const pool = new pg.Pool({ connectionString: stack.postgres.connectionString, max: 1 });
    try {
      const db = drizzle({ client: pool, schema, casing: "snake_case" });
      // What npm run dev does at each start once the demo winery exists.
      const devKey = await replaceSeedKey(db, DEMO_WINERY_ID, DEV_KEY_NAME);
      const secondDevKey = await replaceSeedKey(db, DEMO_WINERY_ID, DEV_KEY_NAME);
      const reseeded = await seed();
      const later = Date.now() + 60_000;
      const works = (key: unknown) => authenticate(http(), key as string, later);
      await expect(works(secondDevKey)).resolves.toMatchObject({ wineryId: DEMO_WINERY_ID });
      await expect(works(reseeded.apiKey)).resolves.toMatchObject({ wineryId: DEMO_WINERY_ID });
      // Each command's new key replaced its own previous one only.
      await expect(works(devKey)).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(works(seeded.apiKey)).rejects.toBeInstanceOf(UnauthenticatedError);
      const again = await replaceSeedKey(db, DEMO_WINERY_ID, DEV_KEY_NAME);
      await expect(works(reseeded.apiKey)).resolves.toMatchObject({ wineryId: DEMO_WINERY_ID });
      await expect(works(again)).resolves.toMatchObject({ wineryId: DEMO_WINERY_ID });
    } finally {
      await pool.end();
    }
  });
});

// What an outside tester, who knows only the interface, can do with the printed ids.
describe("the ids npm run seed prints", () => {
  let ids: Record<string, unknown>;
  beforeAll(async () => {
    ids = await seed();
  });

  it("are RFC 9562 uuids, like every uuid the seed stores", async () => {
    const RFC_9562 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const uuids = ["wineryId", "commerceSessionId", "productId", "customerClassId"];
    for (const key of [...uuids, "experienceId", "slotId", "reservationId"]) {
      expect(ids[key], key).toMatch(RFC_9562);
    }
    const columns = await query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
       where table_schema = 'public' and data_type = 'uuid'`,
    );
    const invalid: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const rows = await query<{ value: string }>(
        `select "${column}"::text as value from "${table}"
         where "${column}"::text !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
         limit 1`,
      );
      for (const { value } of rows) invalid.push(`${table}.${column} ${value}`);
    }
    expect(invalid).toEqual([]);
  });

  it("link the demo orders to the demo contacts by email (E17's contactValue)", async () => {
    const [linked] = await query<{ orders: number; unlinked: number }>(
      `select count(*)::int as orders,
              count(*) filter (where not exists (select 1 from contacts c
                where c.winery_id = o.winery_id and c.email_key = o.buyer_email_key))::int as unlinked
       from orders o where o.winery_id = $1`,
      [ids.wineryId],
    );
    expect(linked?.orders).toBeGreaterThan(0);
    expect(linked?.unlinked).toBe(0);
  });

  it("sell the catalogue's skus: orders, receipts, the session and BRUNELLO15's rule", async () => {
    const unknown = await query<{ source: string; sku: string }>(
      `with used(source, sku) as (
         select 'order item', i.sku from order_items i join orders o on o.id = i.order_id
           where o.winery_id = $1
         union select 'receipt line', l.entity_id from receipt_lines l
           join receipts r on r.id = l.receipt_id where r.winery_id = $1 and l.entity_type = 'PRODUCT'
         union select 'session item', product_id from commerce_session_items
           where winery_id = $1 and product_id is not null
         union select 'coupon rule', entity_id from coupon_rules
           where winery_id = $1 and entity_type = 'PRODUCT')
       select source, sku from used
       where sku not in (select sku from products where winery_id = $1 and sku is not null)`,
      [ids.wineryId],
    );
    expect(unknown).toEqual([]);
    const [brunello] = await query<{ sku: string; rule: string }>(
      `select p.sku, r.entity_id as rule from products p, coupon_rules r
       join coupons c on c.id = r.coupon_id
       where p.id = $1 and c.winery_id = p.winery_id and c.code = 'BRUNELLO15'`,
      [ids.productId],
    );
    expect(brunello?.rule).toBe(brunello?.sku);
  });

  it("type ORDER only the receipts of imported orders; the point-of-sale ones are POS", async () => {
    const types = await query<{ type: string; receipts: number; orderless: number }>(
      `select receipt_type as type, count(*)::int as receipts,
              count(*) filter (where order_id is null or external_entity_id is null)::int as orderless
       from receipts where winery_id = $1 group by 1 order by 1`,
      [ids.wineryId],
    );
    const [orders] = await query<{ n: number }>(
      "select count(*)::int as n from orders where winery_id = $1",
      [ids.wineryId],
    );
    expect(types).toEqual([
      { type: "ORDER", receipts: orders?.n, orderless: 0 },
      { type: "POS", receipts: 300, orderless: 300 },
    ]);
  });

  it("let each filter of E10 change its answer", async () => {
    const wineryId = ids.wineryId as string;
    const list = async (filter: Record<string, unknown>) =>
      JSON.parse(
        await listProducts(http(), wineryId, {
          includeInactive: false,
          activeChannelsOnly: false,
          ...filter,
        }),
      ) as { id: string; channels: unknown[] }[];
    const plain = await list({});
    expect(plain.map((p) => p.id)).toContain(ids.productId);
    expect((await list({ includeInactive: true })).length).toBeGreaterThan(plain.length);
    expect((await list({ statuses: ["PUBLISHED"] })).length).toBeLessThan(plain.length);
    const activeOnly = await list({ activeChannelsOnly: true });
    const channels = (products: { channels: unknown[] }[]) =>
      products.reduce((n, p) => n + p.channels.length, 0);
    expect(activeOnly.length).toBeLessThan(plain.length);
    expect(channels(activeOnly)).toBeLessThan(
      channels(plain.filter((p) => activeOnly.some((a) => a.id === p.id))),
    );
  });

  it("name reservations whose experience title E16 gives in the Lang asked for, from their own labels", async () => {
    const labels = {
      labelKey: null,
      languagesPresent: ["ENGLISH", "ITALIAN"],
      translations: [
        { label: "Classic tasting", language: "ENGLISH", languageISO: "en" },
        { label: "Degustazione classica", language: "ITALIAN", languageISO: "it" },
      ],
    };
    const e16 = async (lang: string) => {
      const docs: string[] = [];
      const filter = { wineryId: ids.wineryId as string, ids: [ids.reservationId as string], lang };
      for await (const batch of queryReservations(database(), filter)) docs.push(...batch);
      return docs.map((doc) => JSON.parse(doc));
    };
    expect(await e16("it")).toEqual([
      expect.objectContaining({
        experienceTitleTranslations: labels,
        experienceTitle: "Degustazione classica",
      }),
    ]);
    expect((await e16("en"))[0]?.experienceTitle).toBe("Classic tasting");
    // Each demo reservation carries its own experience's titles, as E11 stored them.
    const unlike = () =>
      query<{ id: string }>(
        `select r.id from reservations r join experiences e
           on e.winery_id = r.winery_id and e.id = r.experience_id
         where r.winery_id = $1 and (r.experience_title_translations is null
           or (select jsonb_object_agg(t->>'languageISO', t->>'label')
               from jsonb_array_elements(r.experience_title_translations->'translations') t)
              <> e.title_translations)`,
        [ids.wineryId],
      );
    expect(await unlike()).toEqual([]);
    // A database seeded before they had labels gets them, and no rows, from the next run.
    await query("update reservations set experience_title_translations = null");
    const [before] = await query("select count(*)::int as n from reservations");
    await seed();
    expect(lastSeedLog).toMatch(
      /reservations: 0 new, 6 in all, 6 given their experience's title labels;/,
    );
    expect(await query("select count(*)::int as n from reservations")).toEqual([before]);
    expect(await unlike()).toEqual([]);
  });

  it("give a refundable reservation on experienceId and a free slot of it", async () => {
    const [reservation] = await query<{ experience_id: string; rest: number }>(
      `select r.experience_id, (p.amount_cents - p.refunded_cents)::int as rest
       from reservations r join reservation_payments p
         on p.winery_id = r.winery_id and p.reservation_id = r.id and p.in_house
       where r.winery_id = $1 and r.id = $2`,
      [ids.wineryId, ids.reservationId],
    );
    expect(reservation?.experience_id).toBe(ids.experienceId);
    expect(reservation?.rest).toBeGreaterThan(0);
    const [slot] = await query<{ experience_id: string; occupied: number; reservations: number }>(
      `select s.experience_id, s.reserved_count + s.external_occupants as occupied,
         (select count(*)::int from reservations r where r.slot_id = s.id) as reservations
       from slots s where s.winery_id = $1 and s.id = $2`,
      [ids.wineryId, ids.slotId],
    );
    expect(slot).toEqual({ experience_id: ids.experienceId, occupied: 0, reservations: 0 });
    // E9's conflict answers still have an occupied slot to refuse.
    const [occupied] = await query<{ n: number }>(
      "select count(*)::int as n from slots where winery_id = $1 and reserved_count > 0",
      [ids.wineryId],
    );
    expect(occupied?.n).toBeGreaterThan(0);
  });
});

describe("npm run seed -- --tenant", () => {
  const tenant = (uuid: string) =>
    runCommand("seed", ["--tenant", uuid], { DATABASE_URL: stack.postgres.connectionString });
  const snapshot = () =>
    query(
      `select (select json_agg(w order by w.id) from (select id, name from wineries) w) as wineries,
              (select json_agg(c order by c.winery_id, c.api_channel_key)
                 from (select winery_id, api_channel_key from sales_channels) c) as channels,
              (select json_agg(k order by k.id) from (select id, winery_id, name from api_keys) k) as keys`,
    );

  it("refuses the demo winery's uuid, in any letter case, writing nothing", async () => {
    await seed();
    const before = await snapshot();
    for (const uuid of [DEMO_WINERY_ID, DEMO_WINERY_ID.toUpperCase()]) {
      const { code, stdout, stderr } = await tenant(uuid);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(new RegExp(`^--tenant ${uuid} is the demo winery`));
      expect(stderr).toMatch(/\n\nusage:/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses any other winery it did not create, writing nothing", async () => {
    const other = crypto.randomUUID();
    await query("insert into wineries (id, name) values ($1, 'Cantina Vera')", [other]);
    const before = await snapshot();
    const { code, stdout, stderr } = await tenant(other);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n").at(-1)).toBe(
      `seed: winery ${other} (Cantina Vera) exists and was not created by --tenant; --tenant makes an extra, empty winery: choose a new uuid (a key for an existing winery: npm run apikey -- create --winery ${other} --name <label>)`,
    );
    expect(await snapshot()).toEqual(before);
  });

  it("creates an empty winery, and run again for it issues a new key, replacing its own", async () => {
    const uuid = crypto.randomUUID();
    const first = await tenant(uuid);
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout.trim().split("\n").at(-1) ?? "");
    expect(created).toEqual({
      wineryId: uuid,
      apiChannelKey: `ch_${uuid.replaceAll("-", "")}`,
      apiKey: expect.stringMatching(/^wk_/),
    });
    expect(first.stderr).toContain(`winery ${uuid} (Winery ${uuid.slice(0, 8)}) with channel`);
    const before = await snapshot();
    const again = await tenant(uuid.toUpperCase());
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/the previous one no longer works/);
    const renewed = JSON.parse(again.stdout.trim().split("\n").at(-1) ?? "");
    expect({ ...renewed, apiKey: "" }).toEqual({ ...created, apiKey: "" });
    const later = Date.now() + 60_000;
    await expect(authenticate(http(), renewed.apiKey, later)).resolves.toMatchObject({
      wineryId: uuid,
    });
    await expect(authenticate(http(), created.apiKey, later)).rejects.toBeInstanceOf(
      UnauthenticatedError,
    );
    const after = await snapshot();
    expect({ ...after[0], keys: undefined }).toEqual({ ...before[0], keys: undefined });
  });
});
