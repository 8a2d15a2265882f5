// The demo data of `npm run seed` and `npm run dev`: a winery with its channel, then one step per
// area (contacts, orders, ...). To add demo data for another endpoint, write a DemoStep and list it
// in DEMO_STEPS: it must be idempotent (a second run adds no rows) and answers the ids that
// `npm run seed` prints on its JSON line.
import { and, eq, or, sql } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { issueApiKey } from "../../../src/services/auth/api-keys";
import { writeOrder } from "../../../src/services/orders/import-order";
import { LocalDbError } from "../../local-db/errors";
import { seedCatalogue } from "../../seed/catalogue";
import { seedCommerce } from "../../seed/commerce";
import { seedExperiences } from "../../seed/experiences";
import { seedReservations } from "../../seed/reservations";
import type { Db } from "./database";
import { DEMO_CHANNEL_KEY, DEMO_WINERY_ID } from "./demo-winery";

type Log = (line: string) => void;

export { DEMO_CHANNEL_KEY, DEMO_WINERY_ID };
/**
 * The demo keys, one per command and winery: each command's new key replaces only its own last one,
 * so the key `npm run seed` printed keeps working across restarts of `npm run dev` (and the key a
 * running `dev` printed across seeds).
 */
export const SEED_KEY_NAME = "demo key (npm run seed)";
export const DEV_KEY_NAME = "demo key (npm run dev)";
export type DemoKeyName = typeof SEED_KEY_NAME | typeof DEV_KEY_NAME;
/** The one name both commands used before they had their own: replaced by either. */
const SHARED_KEY_NAME = "demo key (npm run seed / npm run dev)";

/** What `npm run seed` prints as the JSON object of its last line. */
export interface SeedResult {
  wineryId: string;
  apiChannelKey: string;
  apiKey: string;
  /** Ids the demo steps add, e.g. orderId (a demo order, for GET/PUT /api/v4/orders/{id}). */
  [id: string]: string | number;
}

export interface DemoWinery {
  wineryId: string;
  apiChannelKey: string;
}

/** One area of demo data; answers the ids it adds to the seed result. */
type DemoStep = (db: Db, winery: DemoWinery, log: Log) => Promise<Record<string, string | number>>;

const FIRST = [
  "Giulia",
  "Marco",
  "Anne",
  "Lukas",
  "Sofia",
  "James",
  "Chiara",
  "Pierre",
  "Elena",
  "Tom",
  "Marta",
  "Jonas",
];
const LAST = [
  "Rossi",
  "Bianchi",
  "Martin",
  "Müller",
  "Ferrari",
  "Smith",
  "Romano",
  "Dubois",
  "Greco",
  "Brown",
  "Conti",
  "Weber",
];
const COUNTRIES = ["IT", "IT", "FR", "DE", "IT", "GB", "IT", "FR", "IT", "US", "IT", "DE"];
const CITIES = [
  "Firenze",
  "Siena",
  "Lyon",
  "München",
  "Montalcino",
  "London",
  "Greve",
  "Bordeaux",
  "Lucca",
  "Boston",
  "Arezzo",
  "Berlin",
];

async function ensureWinery(
  db: Db,
  wineryId: string,
  name: string,
  apiChannelKey: string,
  log: Log,
) {
  await db
    .insert(schema.wineries)
    .values({
      id: wineryId,
      name,
      businessName: `${name} S.r.l.`,
      city: "Montalcino",
      province: "SI",
      region: "Toscana",
      state: "IT",
      zipcode: "53024",
      companyEmail: "info@example.com",
    })
    .onConflictDoNothing();
  await db
    .insert(schema.salesChannels)
    .values({ wineryId, name: "Webshop", apiChannelKey, ecommerceUrl: "https://shop.example.com" })
    .onConflictDoNothing();
  log(`winery ${wineryId} (${name}) with channel ${apiChannelKey}`);
}

/**
 * The demo person's email, ASCII only ("Müller" -> "muller"), lower-case. One function for the
 * contacts and the orders' buyerEmail: a contact is linked to an order by that email, so E17's
 * contactValue of a demo contact counts its demo orders.
 */
function demoEmail(first: string, last: string, i: number): string {
  return `${first}.${last}.${i}@example.com`
    .toLowerCase()
    .normalize("NFD")
    .replace(/[^\x20-\x7e]/g, "");
}

/** Demo contacts spread over the last year, so every date range of E17/E18 finds some. */
const seedContacts: DemoStep = async (db, { wineryId }, log) => {
  const now = Date.now();
  const rows = Array.from({ length: 24 }, (_, i) => {
    const first = FIRST[i % FIRST.length] ?? "Demo";
    const last = LAST[(i * 5) % LAST.length] ?? "Contact";
    const at = new Date(now - (i * 15 + 1) * 86_400_000);
    return {
      wineryId,
      email: demoEmail(first, last, i),
      firstName: first,
      lastName: last,
      phoneNumber: `+39 333 ${String(1000000 + i * 7919).slice(0, 7)}`,
      countryIso: COUNTRIES[i % COUNTRIES.length] ?? "IT",
      city: CITIES[i % CITIES.length] ?? null,
      languageIso: i % 3 === 0 ? "en" : "it",
      acceptedMarketing: i % 2 === 0,
      acceptedPrivacyTerms: true,
      acceptedProfiling: i % 4 === 0,
      createdAt: at,
      updatedAt: at,
    };
  });
  const inserted = await db
    .insert(schema.contacts)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: schema.contacts.id });
  for (const [i, { id }] of inserted.entries()) {
    if (i % 3 !== 0) continue;
    await db
      .insert(schema.contactEmails)
      .values({ contactId: id, email: `work.${id}@example.org`, type: "WORK" });
    await db.insert(schema.contactAddresses).values({
      contactId: id,
      address: `Via Roma ${i + 1}`,
      city: "Siena",
      countryIso: "IT",
      province: "SI",
      zipcode: "53100",
    });
  }
  log(`contacts: ${inserted.length} new, of the ${rows.length} demo contacts`);
  return {};
};

async function countContacts(db: Db, wineryId: string): Promise<number> {
  const [{ count } = { count: 0 }] = await db
    .execute<{ count: number }>(
      sql`select count(*)::int as count from contacts where winery_id = ${wineryId}`,
    )
    .then((r) => r.rows);
  return count;
}

/** Skus of the demo catalogue (scripts/seed/catalogue.ts): GRAPPA-50 is its inactive product. */
const WINES = [
  { sku: "BRUNELLO-2019", name: "Brunello di Montalcino DOCG 2019", unitPriceCents: 4500 },
  { sku: "ROSSO-2022", name: "Rosso di Montalcino DOC 2022", unitPriceCents: 1800 },
  { sku: "VERM-2023", name: "Vermentino Toscana IGT 2023", unitPriceCents: 1400 },
  { sku: "GRAPPA-50", name: "Grappa di Brunello 50cl", unitPriceCents: 3200 },
];

/** Demo orders imported the way E1 imports them (items and receipt included); idempotent by external id. */
const seedOrders: DemoStep = async (db, { wineryId, apiChannelKey }, log) => {
  let created = 0;
  for (let i = 0; i < 12; i++) {
    const externalId = `DEMO-${String(i + 1).padStart(4, "0")}`;
    const [existing] = await db
      .select({ id: schema.orders.id })
      .from(schema.orders)
      .where(and(eq(schema.orders.wineryId, wineryId), eq(schema.orders.externalId, externalId)));
    if (existing) continue;
    const items = [WINES[i % WINES.length], WINES[(i + 1) % WINES.length]].map((wine, line) => {
      const quantity = 1 + ((i + line) % 3);
      const unitPriceCents = wine?.unitPriceCents ?? 1000;
      return {
        sku: wine?.sku,
        name: wine?.name,
        quantity,
        unitPriceCents,
        amountCents: unitPriceCents * quantity,
        vatPercentage: 22,
        type: "PRODUCT",
      };
    });
    const shipment = i % 2 === 0 ? 990 : 0;
    const amountCents = items.reduce((sum, item) => sum + item.amountCents, 0) + shipment;
    const first = FIRST[i % FIRST.length] ?? "Demo";
    const last = LAST[(i * 5) % LAST.length] ?? "Buyer";
    await db.transaction((tx) =>
      writeOrder(tx, wineryId, apiChannelKey, {
        id: externalId,
        date: new Date(Date.now() - i * 5 * 86_400_000).toISOString().slice(0, 10),
        status: i % 4 === 0 ? "SHIPPED" : "PAID",
        buyerEmail: demoEmail(first, last, i),
        buyerFirstname: first,
        buyerLastname: last,
        city: CITIES[i % CITIES.length],
        countryIso: COUNTRIES[i % COUNTRIES.length],
        amountCents,
        amountShipmentCents: shipment,
        amountVatPercentage: 22,
        amountVatCents: Math.round((amountCents * 22) / 122),
        paymentMethod: i % 3 === 0 ? "paypal" : "card",
        sourceExternal: {
          id: `LEGACY-${1000 + i}`,
          type: i % 2 === 0 ? "WEBSHOP" : "POS_TERMINAL",
        },
        items,
      }),
    );
    created++;
  }
  const [firstOrder] = await db
    .select({ id: schema.orders.id })
    .from(schema.orders)
    .where(eq(schema.orders.wineryId, wineryId))
    .orderBy(schema.orders.id)
    .limit(1);
  log(`orders: ${created} new, each with its receipt`);
  if (!firstOrder) throw new Error("the demo winery has no order after seeding");
  return { orderId: firstOrder.id };
};

/** An area's own demo data (scripts/seed/<area>.ts), logged with the ids it answers. */
const area =
  (
    name: string,
    seed: (db: Db, wineryId: string) => Promise<Record<string, string | number>>,
  ): DemoStep =>
  async (db, { wineryId }, log) => {
    const ids = await seed(db, wineryId);
    log(`${name}: ${JSON.stringify(ids)}`);
    return ids;
  };

/**
 * The demo reservations (scripts/seed/reservations.ts). Their guests are contacts too (E11 upserts
 * a reservation's contacts), counted here so that the winery's contacts add up in the log.
 */
const reservationsStep: DemoStep = async (db, { wineryId }, log) => {
  const before = await countContacts(db, wineryId);
  const { ids, created, total, labelled } = await seedReservations(db, wineryId);
  const contacts = await countContacts(db, wineryId);
  log(
    `reservations: ${created} new, ${total} in all${labelled ? `, ${labelled} given their experience's title labels` : ""}; their guests: ${contacts - before} new contacts, ${contacts} contacts in all; ${JSON.stringify(ids)}`,
  );
  return ids;
};

const DEMO_STEPS: DemoStep[] = [
  seedContacts,
  seedOrders,
  area("commerce", seedCommerce),
  area("catalogue", seedCatalogue),
  area("experiences", seedExperiences),
  reservationsStep,
];

/**
 * A new key for the winery, replacing the one `seed`/`dev` issued before (deleted, so keys do not
 * pile up and the old one stops working; isolates that verified it in the last 5 s may still
 * accept it until their cache expires). Keys named by earlier versions ("seed <date>", "dev
 * <date>") go too.
 */
export async function replaceSeedKey(
  db: Db,
  wineryId: string,
  name: DemoKeyName = SEED_KEY_NAME,
  /** Told whether a key was replaced (none is, the first time). */
  issued?: (replaced: boolean) => void,
): Promise<string> {
  const { key, replaced } = await db.transaction(async (tx) => {
    const gone = await tx
      .delete(schema.apiKeys)
      .where(
        and(
          eq(schema.apiKeys.wineryId, wineryId),
          or(
            eq(schema.apiKeys.name, name),
            eq(schema.apiKeys.name, SHARED_KEY_NAME),
            sql`${schema.apiKeys.name} ~ '^(seed|dev) [0-9]{4}-[0-9]{2}-[0-9]{2}T'`,
          ),
        ),
      )
      .returning({ id: schema.apiKeys.id });
    // The bulk tier: bench and load runs send thousands of requests a minute with this key.
    const { key } = await issueApiKey(tx, wineryId, name, { rateLimitTier: "bulk" });
    return { key, replaced: gone.length > 0 };
  });
  issued?.(replaced);
  return key;
}

/** The demo winery with its channel and every DEMO_STEPS area; idempotent, with a fresh key. */
export async function seedDemo(
  db: Db,
  log: Log,
  keyName: DemoKeyName = SEED_KEY_NAME,
): Promise<SeedResult> {
  const winery = { wineryId: DEMO_WINERY_ID, apiChannelKey: DEMO_CHANNEL_KEY };
  await ensureWinery(db, DEMO_WINERY_ID, "Tenuta Demo", DEMO_CHANNEL_KEY, log);
  let ids: Record<string, string | number> = {};
  for (const step of DEMO_STEPS) ids = { ...ids, ...(await step(db, winery, log)) };
  const apiKey = await replaceSeedKey(db, DEMO_WINERY_ID, keyName, (replaced) =>
    log(
      replaced
        ? `issued a new API key for the demo winery; the previous one of ${keyName === SEED_KEY_NAME ? "npm run seed" : "npm run dev"} no longer works`
        : "issued an API key for the demo winery",
    ),
  );
  return { ...winery, apiKey, ...ids };
}

/** The channel of a winery `seedTenant` created: how a later run knows the winery as its own. */
const tenantChannelKey = (wineryId: string) => `ch_${wineryId.replaceAll("-", "")}`;

/**
 * An extra, empty winery (with a channel and a key), for trying tenancy by hand. Run again for a
 * winery it created, it issues a new key (the previous one stops working) and leaves the rest as
 * it is. Any other existing winery (the demo winery, one created by the API or by hand) is refused
 * with nothing written: its name, channels and keys are not this command's to change.
 */
export async function seedTenant(db: Db, wineryId: string, log: Log): Promise<SeedResult> {
  const apiChannelKey = tenantChannelKey(wineryId);
  const [existing] = await db
    .select({ name: schema.wineries.name, channel: schema.salesChannels.apiChannelKey })
    .from(schema.wineries)
    .leftJoin(
      schema.salesChannels,
      and(
        eq(schema.salesChannels.wineryId, schema.wineries.id),
        eq(schema.salesChannels.apiChannelKey, apiChannelKey),
      ),
    )
    .where(eq(schema.wineries.id, wineryId));
  if (existing && existing.channel === null)
    throw new LocalDbError(
      `winery ${wineryId} (${existing.name}) exists and was not created by --tenant; --tenant makes an extra, empty winery: choose a new uuid (a key for an existing winery: npm run apikey -- create --winery ${wineryId} --name <label>)`,
    );
  const name = existing?.name ?? `Winery ${wineryId.slice(0, 8)}`;
  await ensureWinery(db, wineryId, name, apiChannelKey, log);
  const apiKey = await replaceSeedKey(db, wineryId, SEED_KEY_NAME, (replaced) =>
    log(
      replaced
        ? "issued a new API key for the tenant; the previous one no longer works"
        : "issued an API key for the tenant",
    ),
  );
  return { wineryId, apiChannelKey, apiKey };
}

export async function isSeeded(db: Db): Promise<boolean> {
  const rows = await db
    .select({ id: schema.wineries.id })
    .from(schema.wineries)
    .where(eq(schema.wineries.id, DEMO_WINERY_ID));
  return rows.length > 0;
}
