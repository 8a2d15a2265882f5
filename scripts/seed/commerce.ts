/**
 * Demo data of the commerce area: coupons (percent, fixed, expired, not yet valid, exhausted,
 * restricted to one product), a few hundred fiscal receipts over the last six months, and an open
 * commerce session. Idempotent: every row has a fixed id derived from the winery (an RFC 9562
 * version 3 uuid: md5 with its version and variant bits set) or a natural key, and is inserted
 * with ON CONFLICT DO NOTHING, so a second run adds nothing.
 */
import { type SQL, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type * as schema from "../../src/db/schema";

const RECEIPTS = 300;

/**
 * The md5 of a text as an RFC 9562 uuid: version 3 (name-based, md5) in the version nibble and
 * variant 10xx, so strict clients accept it (a bare md5::uuid has random version and variant bits).
 */
const md5Uuid = (text: SQL) =>
  sql`overlay(overlay(md5(${text}) placing '3' from 13 for 1) placing '8' from 17 for 1)::uuid`;

/** A stable uuid per (winery, label). */
const demoId = (wineryId: string, label: string) => md5Uuid(sql`${wineryId} || ${label}`);

interface DemoCoupon {
  code: string;
  discountType: "percent" | "fixed";
  discountPercent?: number;
  discountCents?: number;
  startAt?: string;
  endAt?: string;
  minimumOrderCents?: number;
  useMax?: number;
  useMaxByEmail?: number;
  uses?: number;
  rule?: { entityType: string; entityId: string };
}

const year = new Date().getUTCFullYear();
const COUPONS: DemoCoupon[] = [
  { code: "WELCOME10", discountType: "percent", discountPercent: 10, useMaxByEmail: 1, uses: 1 },
  { code: "CELLAR5", discountType: "fixed", discountCents: 500, minimumOrderCents: 3000 },
  {
    code: "HARVEST2020",
    discountType: "percent",
    discountPercent: 20,
    endAt: "2020-10-31T23:59:59Z",
  },
  {
    code: `SPRING${year + 1}`,
    discountType: "percent",
    discountPercent: 15,
    startAt: `${year + 1}-03-01T00:00:00Z`,
  },
  { code: "FIRST50", discountType: "fixed", discountCents: 1000, useMax: 2, uses: 2 },
  {
    code: "BRUNELLO15",
    discountType: "percent",
    discountPercent: 15,
    rule: { entityType: "PRODUCT", entityId: "BRUNELLO-2019" },
  },
];

async function seedCoupons(db: NodePgDatabase<typeof schema>, wineryId: string) {
  for (const c of COUPONS) {
    await db.execute(sql`
      insert into coupons (id, winery_id, code, active, type, discount_type, discount_percent,
        discount_cents, start_at, end_at, minimum_order_cents, use_max, use_max_by_email)
      values (${demoId(wineryId, `coupon:${c.code}`)}, ${wineryId}, ${c.code}, true, 'RESERVATION',
        ${c.discountType}, ${c.discountPercent ?? null}, ${c.discountCents ?? null},
        ${c.startAt ?? null}, ${c.endAt ?? null}, ${c.minimumOrderCents ?? null},
        ${c.useMax ?? null}, ${c.useMaxByEmail ?? null})
      on conflict do nothing`);
    const coupon = sql`(select id from coupons where winery_id = ${wineryId} and code_key = lower(${c.code}))`;
    if (c.rule) {
      await db.execute(sql`
        insert into coupon_rules (id, winery_id, coupon_id, position, entity_type, entity_id)
        values (${demoId(wineryId, `rule:${c.code}`)}, ${wineryId}, ${coupon}, 0,
          ${c.rule.entityType}, ${c.rule.entityId})
        on conflict do nothing`);
    }
    if (c.uses) {
      await db.execute(sql`
        insert into coupon_uses (id, winery_id, coupon_id, email, purchase_id)
        select ${md5Uuid(sql`${wineryId} || ${`use:${c.code}:`} || g`)}, ${wineryId}, ${coupon},
          'guest' || g || '@example.com', 'DEMO-' || g
        from generate_series(1, ${c.uses}) g
        on conflict do nothing`);
    }
  }
}

/**
 * Point-of-sale receipts (terminals Bar, Shop and Cellar), a line and a payment each, spread over
 * the last 180 days and numbered after E1's. Their receiptType is POS: ORDER is the type of the
 * receipts E1 issues for imported orders, each with its order's id as externalEntityId, and an
 * outside audit reconciling E4's ORDER receipts against E20's orders found these 300 with no
 * order (the seed typed them ORDER until then; a database seeded before is retyped).
 */
async function seedReceipts(db: NodePgDatabase<typeof schema>, wineryId: string) {
  const receiptId = md5Uuid(sql`${wineryId} || 'receipt:' || g`);
  const names = ["Marco Bianchi", "Anna Rossi", "Luca Verdi", "Giulia Neri", "Paolo Conti"];
  await db.execute(sql`
    insert into receipts (id, winery_id, customer_name, terminal_id, terminal_name, receipt_type,
      fiscal_operation, status, authority_communication_state, sale_document_state, ref_date,
      total_cents, total_no_vat_cents, vat_amount_cents, progressive_number, created_at, updated_at)
    select ${receiptId}, ${wineryId},
      (array[${sql.join(
        names.map((n) => sql`${n}`),
        sql`, `,
      )}])[1 + g % 5], 'T' || (1 + g % 3), (array['Bar', 'Shop', 'Cellar'])[1 + g % 3],
      'POS', case when g % 25 = 0 then 'REFUND' else 'RECEIPT' end,
      case when g % 7 = 0 then 'SENT' else 'CREATED' end,
      case when g % 7 = 0 then 'DONE' else 'TODO' end, 'NONE', at, total,
      round(total / 1.22)::bigint, total - round(total / 1.22)::bigint,
      coalesce((select value from winery_counters where winery_id = ${wineryId} and name = 'receipt'), 0) + g,
      at, at
    from generate_series(1, ${RECEIPTS}) g,
      lateral (select now() - (g * interval '14 hours') as at, (1500 + (g * 7919) % 25000)::bigint as total) x
    on conflict do nothing`);
  await db.execute(sql`
    insert into winery_counters (winery_id, name, value)
    select ${wineryId}, 'receipt', max(progressive_number) from receipts where winery_id = ${wineryId}
    having count(*) > 0
    on conflict (winery_id, name) do update set value = greatest(winery_counters.value, excluded.value)`);
  const seeded = sql`(select id, total_cents, total_no_vat_cents, vat_amount_cents, created_at
    from receipts where winery_id = ${wineryId}
      and id in (select ${receiptId} from generate_series(1, ${RECEIPTS}) g))`;
  await db.execute(sql`
    update receipts set receipt_type = 'POS'
    where winery_id = ${wineryId} and receipt_type = 'ORDER'
      and id in (select ${receiptId} from generate_series(1, ${RECEIPTS}) g)`);
  await db.execute(sql`
    insert into receipt_lines (id, receipt_id, description, entity_id, entity_type, line_number,
      line_type, net_total_cents, quantity, unit_price_cents, vat_amount_cents, vat_percent,
      created_at, updated_at)
    select ${md5Uuid(sql`r.id::text || 'line'`)}, r.id, 'Brunello di Montalcino 2019',
      'BRUNELLO-2019', 'PRODUCT', 1, 'SALE', r.total_no_vat_cents, 1, r.total_cents, r.vat_amount_cents, 22,
      r.created_at, r.created_at
    from ${seeded} r
    on conflict do nothing`);
  await db.execute(sql`
    insert into receipt_payments (id, receipt_id, currency, gross_total_cents, method,
      payment_number, status, created_at, updated_at)
    select ${md5Uuid(sql`r.id::text || 'payment'`)}, r.id, 'EUR', r.total_cents, 'card', 1, 'PAID',
      r.created_at, r.created_at
    from ${seeded} r
    on conflict do nothing`);
}

async function seedSession(db: NodePgDatabase<typeof schema>, wineryId: string) {
  const items = [
    { name: "Brunello di Montalcino 2019", productId: "BRUNELLO-2019", qty: 2, price: 4500 },
    { name: "Rosso di Montalcino 2022", productId: "ROSSO-2022", qty: 1, price: 1800 },
    { name: "Cellar tour", productId: null, qty: 4, price: 2500 },
  ];
  const created = await db.execute(sql`
    insert into commerce_sessions (winery_id, id, cart_mode, channel, custom_name, status, guests,
      metadata, version, write_id)
    values (${wineryId}, ${demoId(wineryId, "session")}, 'POS', 'counter', 'Table 4', 'OPEN', 4,
      '{"note":"demo basket"}'::jsonb, 1, ${demoId(wineryId, "session-write")})
    on conflict do nothing
    returning id`);
  // A session already there is left as it is: its items are whatever its last replace (E3) made
  // them, and putting the demo's back would change it without a new version.
  if (created.rows.length === 0) return;
  for (const [position, item] of items.entries()) {
    await db.execute(sql`
      insert into commerce_session_items (winery_id, session_id, id, position, item_type, line_index,
        name, product_id, qty, unit_price_cents, vat_percent, editable, locked)
      values (${wineryId}, ${demoId(wineryId, "session")}, ${demoId(wineryId, `session-item:${position}`)},
        ${position}, ${item.productId ? "PRODUCT" : "EXPERIENCE"}, ${position}, ${item.name},
        ${item.productId}, ${item.qty}, ${item.price}, 22, true, false)
      on conflict do nothing`);
  }
}

export async function seedCommerce(
  db: NodePgDatabase<typeof schema>,
  wineryId: string,
): Promise<Record<string, string>> {
  await seedCoupons(db, wineryId);
  await seedReceipts(db, wineryId);
  await seedSession(db, wineryId);
  const [session] = (
    await db.execute<{ id: string }>(sql`select ${demoId(wineryId, "session")}::text as id`)
  ).rows;
  return { couponCode: "WELCOME10", commerceSessionId: session?.id ?? "" };
}
