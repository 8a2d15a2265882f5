/**
 * The bench's data, generated in Postgres (generate_series inserts, no row built in Node):
 *
 * - the measured winery: a fixed amount of data that the scaled routes read (orders with items,
 *   receipts with lines and payments, products with their child rows, contacts, reservations
 *   with their MASTER contact), the same at every scale, so that a change of latency between
 *   scales is the cost of the bigger tables;
 * - filler wineries: the rest of each table, spread evenly over them (1,000 wineries in all);
 * - export wineries: E17 exports of fixed sizes.
 *
 * Each generator inserts in chunks and reports progress, since a million rows take a while.
 */
import pg from "pg";

export type Progress = (line: string) => void;

/** Where the rows go: one winery, or spread over the filler wineries. */
export type Owner = { wineryId: string } | "fillers";

/** The measured winery's dates: all of them inside MEASURED_RANGE, filler rows mostly outside. */
export const MEASURED_RANGE = { from: "2025-03-01", to: "2025-03-31" };
const CHUNK = 100_000;

/** See Generator.reservationTargets. */
export interface ReservationTargets {
  experienceId: string;
  /** One slot per date, all at `slotTime`. */
  slotDates: string[];
  slotTime: string;
  /**
   * Paid reservations that E14 refunds in turn (REFUNDABLE_RESERVATIONS of them), so that each
   * gets a few refunds as a real one would: thousands on one reservation skewed the planner's
   * statistics of reservation_refunds, and E16's documents then scanned it (the scaling table).
   */
  refundReservationIds: string[];
}
const RESERVATION_SLOTS_FROM = "2030-01-07";
const RESERVATION_SLOT_TIME = "15:00:00";
/** Places per slot: E11 takes 2 per request, so even 100,000 requests leave room. */
const RESERVATION_SLOT_PLACES = 1_000_000;
/** E14's paid amount: a cent per refund lasts a hundred million requests. */
const REFUNDABLE_CENTS = 100_000_000;
/** Reservations E14 takes in turn: a few refunds each over a full run's ~4,000. */
const REFUNDABLE_RESERVATIONS = 1000;

export class Generator {
  private progressive = 1;
  private fillerCount = 0;

  constructor(
    readonly pool: pg.Pool,
    private readonly progress: Progress,
  ) {}

  static open(connectionString: string, progress: Progress): Generator {
    const pool = new pg.Pool({ connectionString, max: 2 });
    pool.on("error", () => {});
    return new Generator(pool, progress);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  async query(text: string, values: unknown[] = []) {
    return this.pool.query(text, values);
  }

  /** `count` filler wineries (numbered 0..count-1 in bench_fillers), each with a sales channel. */
  async fillerWineries(count: number): Promise<void> {
    await this.query(
      `create table if not exists bench_fillers (n int primary key, winery_id uuid not null, channel_id uuid)`,
    );
    await this.query(
      `with w as (
         insert into wineries (name) select 'Bench filler ' || g from generate_series(0, $1::int - 1) g
         returning id, name)
       insert into bench_fillers (n, winery_id)
       select substring(name from 14)::int, id from w`,
      [count],
    );
    await this.query(
      `with c as (
         insert into sales_channels (winery_id, name, api_channel_key)
         select winery_id, 'Webshop', 'bench-filler-' || n from bench_fillers returning id, winery_id)
       update bench_fillers f set channel_id = c.id from c where c.winery_id = f.winery_id`,
    );
    this.fillerCount = count;
  }

  /** `from g join <owner> f`: each generated row g gets its winery as f.winery_id. */
  private owner(owner: Owner, values: unknown[]): string {
    if (owner === "fillers") return `bench_fillers f on f.n = g % ${this.fillerCount}`;
    values.push(owner.wineryId);
    const w = `$${values.length}::uuid`;
    return `(select ${w} as winery_id,
      (select id from sales_channels where winery_id = ${w} order by created_at limit 1) as channel_id) f on true`;
  }

  /** Runs `insert` for g in [1, count] in chunks, with progress lines for big counts. */
  private async chunked(
    label: string,
    count: number,
    insert: (lo: number, hi: number) => Promise<void>,
  ) {
    const started = performance.now();
    for (let lo = 1; lo <= count; lo += CHUNK) {
      const hi = Math.min(count, lo + CHUNK - 1);
      await insert(lo, hi);
      if (count > CHUNK)
        this.progress(
          `  ${label}: ${hi.toLocaleString("en")} / ${count.toLocaleString("en")} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
    }
  }

  /** Orders (each with two items), dated inside MEASURED_RANGE for a winery, over two years for fillers. */
  async orders(owner: Owner, count: number): Promise<void> {
    const tag = crypto.randomUUID().slice(0, 8);
    const day =
      owner === "fillers"
        ? `date '2024-01-01' + (g % 730)`
        : `date '${MEASURED_RANGE.from}' + (g % 28)`;
    await this.chunked("orders", count, async (lo, hi) => {
      const values: unknown[] = [lo, hi];
      const { rows } = await this.query(
        `with o as (
           insert into orders (winery_id, channel_id, external_id, amount_cents, amount_shipment_cents, amount_vat_cents,
             amount_vat_percentage, buyer_email, buyer_firstname, buyer_lastname, city, country_iso,
             order_date, payment_method, status, quantity, source_external_id, source_external_type)
           select f.winery_id, f.channel_id, 'BENCH-${tag}-' || g, 7290, 990, 1136, 22, 'buyer' || g || '@example.com',
             'Giulia', 'Rossi', 'Siena', 'IT', ${day}, 'card', 'PAID', 3, 'LEGACY-' || g, 'WEBSHOP'
           from generate_series($1::int, $2::int) g join ${this.owner(owner, values)}
           returning id, winery_id)
         insert into order_items (order_id, winery_id, line_index, sku, name, quantity, unit_price_cents,
           amount_cents, vat_percentage, type)
         select o.id, o.winery_id, k, 'SKU-' || k, 'Brunello di Montalcino DOCG 2019', 1 + k, 2100, 2100 * (1 + k), 22, 'PRODUCT'
         from o cross join generate_series(0, 1) k
         returning 1`,
        values,
      );
      if (rows.length !== (hi - lo + 1) * 2 && owner !== "fillers")
        throw new Error("order items were not all inserted");
    });
  }

  /** Receipts with one line and one payment each (lines and payments for a winery only). */
  async receipts(owner: Owner, count: number): Promise<void> {
    const at =
      owner === "fillers"
        ? `timestamptz '2024-01-01T10:00:00Z' + (g % 730) * interval '1 day'`
        : `timestamptz '${MEASURED_RANGE.from}T10:00:00Z' + (g % 28) * interval '1 day'`;
    const base = this.progressive;
    this.progressive += count;
    await this.chunked("receipts", count, async (lo, hi) => {
      const values: unknown[] = [lo, hi, base];
      const insert = `insert into receipts (winery_id, progressive_number, receipt_type, fiscal_operation, status,
          authority_communication_state, sale_document_state, ref_date, created_at, total_cents,
          total_no_vat_cents, vat_amount_cents, customer_name)
        select f.winery_id, $3::int + g, 'ORDER', 'RECEIPT', 'CREATED', 'TODO', 'NONE', ${at}, ${at},
          1000, 820, 180, 'Giulia Rossi'
        from generate_series($1::int, $2::int) g join ${this.owner(owner, values)}`;
      if (owner === "fillers") {
        await this.query(insert, values);
        return;
      }
      await this.query(
        `with r as (${insert} returning id),
         l as (insert into receipt_lines (receipt_id, line_number, line_type, description, net_total_cents,
           quantity, unit_price_cents, vat_amount_cents, vat_percent)
           select id, 1, 'SALE', 'Brunello di Montalcino DOCG 2019', 820, 1, 1000, 180, 22 from r)
         insert into receipt_payments (receipt_id, currency, gross_total_cents, payment_number, status)
         select id, 'EUR', 1000, 1, 'PAID' from r`,
        values,
      );
    });
  }

  /**
   * Products; for a winery each with a category (of 10), a channel price, a metadata entry and a
   * file, as a catalogue has them (filler products have no child rows).
   */
  async products(owner: Owner, count: number): Promise<void> {
    const values0: unknown[] = [];
    const children = owner !== "fillers";
    if (children) {
      values0.push(owner.wineryId);
      await this.query(
        `insert into categories (winery_id, name_en, name_it, priority)
         select $1::uuid, 'Category ' || g, 'Categoria ' || g, g from generate_series(1, 10) g`,
        values0,
      );
    }
    await this.chunked("products", count, async (lo, hi) => {
      const values: unknown[] = [lo, hi];
      const insert = `insert into products (winery_id, sku, name_en, name_it, status, price_cents, price_currency,
          default_vat_rate, units_per_case, display_order, name_translations)
        select f.winery_id, 'BENCH-' || g, 'Wine ' || g, 'Vino ' || g, 'PUBLISHED', 4500, 'EUR', 22, 6, g % 100,
          jsonb_build_object('en', 'Wine ' || g, 'it', 'Vino ' || g)
        from generate_series($1::int, $2::int) g join ${this.owner(owner, values)}`;
      if (!children) {
        await this.query(insert, values);
        return;
      }
      await this.query(
        `with p as (${insert} returning id, winery_id, display_order),
         cats as (select id, row_number() over (order by priority) - 1 as n from categories where winery_id = $3::uuid),
         pc as (insert into product_categories (winery_id, product_id, category_id)
           select p.winery_id, p.id, cats.id from p join cats on cats.n = p.display_order % 10),
         ch as (insert into product_channels (winery_id, product_id, winery_channel_id, price_cents)
           select p.winery_id, p.id, s.id, 4200 from p
           join lateral (select id from sales_channels where winery_id = p.winery_id limit 1) s on true),
         m as (insert into product_metadata (winery_id, product_id, metadata_name, metadata_value)
           select p.winery_id, p.id, 'vintage', '2019' from p)
         insert into product_files (winery_id, product_id, display_order, data)
         select p.winery_id, p.id, 0, jsonb_build_object('fileName', 'label.jpg', 'mimeType', 'image/jpeg') from p`,
        values,
      );
    });
  }

  /** Contacts, without child rows, created and updated at `at` for a winery (spread for fillers). */
  async contacts(
    owner: Owner,
    count: number,
    at = `${MEASURED_RANGE.from}T12:00:00Z`,
  ): Promise<void> {
    const tag = crypto.randomUUID().slice(0, 8);
    const when =
      owner === "fillers"
        ? `timestamptz '2024-01-01T12:00:00Z' + (g % 730) * interval '1 day'`
        : `$3::timestamptz`;
    await this.chunked("contacts", count, async (lo, hi) => {
      const values: unknown[] = [lo, hi];
      if (owner !== "fillers") values.push(at);
      await this.query(
        `insert into contacts (winery_id, email, first_name, last_name, phone_number, country_iso, created_at, updated_at)
         select f.winery_id, 'bulk-${tag}-' || g || '@example.com', 'Bulk', 'Contact ' || g, '+39 000 ' || g, 'IT', ${when}, ${when}
         from generate_series($1::int, $2::int) g join ${this.owner(owner, values)}`,
        values,
      );
    });
  }

  /**
   * One experience and a few guests (MASTER contacts) per winery of `owner`, for reservations():
   * the join clause gives f.winery_id, f.experience_id and f.guests (contact ids). Guests are the
   * winery's own contacts (the measured winery's first 50, so its contact count stays MEASURED);
   * a filler winery without any gets one "Bench guest" contact.
   */
  private async reservationOwners(owner: Owner, values: unknown[]): Promise<string> {
    const experience = (winery: string) =>
      `insert into experiences (id, winery_id, active, state, price_cents, price_currency, title_translations)
       select gen_random_uuid(), ${winery}, true, 'PUBLISHED', 2500, 'EUR',
         '{"en": "Guided tasting", "it": "Degustazione guidata"}'::jsonb`;
    if (owner === "fillers") {
      await this.query(
        `alter table bench_fillers add column if not exists experience_id uuid, add column if not exists guests bigint[]`,
      );
      await this.query(
        `with e as (${experience("winery_id")} from bench_fillers where experience_id is null returning id, winery_id)
         update bench_fillers f set experience_id = e.id from e where e.winery_id = f.winery_id`,
      );
      await this.query(
        `update bench_fillers f set guests = array(select id from contacts c where c.winery_id = f.winery_id order by id limit 10)
         where guests is null or cardinality(guests) = 0`,
      );
      await this.query(
        `with c as (
           insert into contacts (winery_id, email, first_name, last_name, country_iso)
           select winery_id, 'guest-' || n || '@example.com', 'Bench', 'Guest', 'IT' from bench_fillers
           where cardinality(guests) = 0 returning id, winery_id)
         update bench_fillers f set guests = array[c.id] from c where c.winery_id = f.winery_id`,
      );
      return `bench_fillers f on f.n = g % ${this.fillerCount}`;
    }
    const { rows } = await this.query(
      `with e as (${experience("$1::uuid")} returning id)
       select (select id from e) as experience_id,
         array(select id from contacts where winery_id = $1::uuid order by id limit 50) as guests`,
      [owner.wineryId],
    );
    const { experience_id, guests } = rows[0] as { experience_id: string; guests: string[] };
    if (guests.length === 0) throw new Error("the winery's contacts come before its reservations");
    values.push(owner.wineryId, experience_id, guests);
    const n = values.length;
    return `(select $${n - 2}::uuid as winery_id, $${n - 1}::uuid as experience_id, $${n}::bigint[] as guests) f on true`;
  }

  /**
   * Reservations of an experience, each with a MASTER contact (no slot, price items or payments:
   * E16's document reads them through subqueries that find none). Dated inside MEASURED_RANGE for
   * a winery (10:00 to 17:00), over two years for fillers.
   */
  async reservations(owner: Owner, count: number): Promise<void> {
    const day =
      owner === "fillers"
        ? `date '2024-01-01' + (g % 730)`
        : `date '${MEASURED_RANGE.from}' + (g % 28)`;
    const values0: unknown[] = [];
    const from = await this.reservationOwners(owner, values0);
    await this.chunked("reservations", count, async (lo, hi) => {
      const values: unknown[] = [...values0, lo, hi];
      const range = `generate_series($${values.length - 1}::int, $${values.length}::int)`;
      await this.query(
        `with src as materialized (
           select gen_random_uuid() as id, f.winery_id, f.experience_id, g,
             (f.guests)[1 + g % cardinality(f.guests)] as contact_id
           from ${range} g join ${from}),
         r as (
           insert into reservations (id, winery_id, experience_id, date, time, state, guest_count01,
             guest_count_total, gross_total_cents, net_total_cents, discount_total_cents, due_total_cents,
             paid_total_cents, paid, language_iso, origin, payment_currency, message)
           select id, winery_id, experience_id, ${day}, time '10:00' + (g % 8) * interval '1 hour',
             'CONFIRMED', 2, 2, 5000, 4098, 0, 0, 5000, true, 'en', 'bench', 'EUR', 'Reservation ' || g
           from src)
         -- the foreign key to reservations is checked at the end of the statement, after both inserts
         insert into reservation_contacts (winery_id, reservation_id, contact_id, contact_type, position)
         select winery_id, id, contact_id, 'MASTER', 0 from src`,
        values,
      );
    });
  }

  /**
   * What E11 and E14 write to, in one winery (the demo one; never the measured winery, whose
   * reservations and contacts the scaled reads count): an experience with `slotCount` slots of
   * RESERVATION_SLOT_PLACES places on consecutive days, which E11's imports (2 guests each) take
   * in turn so that they do not all queue on one slot row and no run fills them; and one
   * reservation with an in-house payment of REFUNDABLE_CENTS, which E14 refunds a cent at a time.
   */
  async reservationTargets(wineryId: string, slotCount: number): Promise<ReservationTargets> {
    const { rows } = await this.query(
      `with e as (
         insert into experiences (id, winery_id, active, state, price_cents, price_currency, title_translations)
         values (gen_random_uuid(), $1::uuid, true, 'PUBLISHED', 2500, 'EUR', '{"en": "Bench imports"}'::jsonb)
         returning id, winery_id),
       s as (
         insert into slots (winery_id, experience_id, date, time, max_parties)
         select e.winery_id, e.id, date '${RESERVATION_SLOTS_FROM}' + g, time '${RESERVATION_SLOT_TIME}', $3::int
         from e, generate_series(0, $2::int - 1) g
         returning id),
       r as (
         insert into reservations (id, winery_id, experience_id, date, time, state, guest_count01,
           guest_count_total, gross_total_cents, paid_total_cents, paid, language_iso, origin, payment_currency)
         select gen_random_uuid(), e.winery_id, e.id, date '${RESERVATION_SLOTS_FROM}', time '${RESERVATION_SLOT_TIME}',
           'CONFIRMED', 2, 2, $4::bigint, $4::bigint, true, 'en', 'bench', 'EUR'
         from e, generate_series(1, $5::int)
         returning id, winery_id),
       -- the foreign key to reservations is checked at the end of the statement, after both inserts
       p as (
         insert into reservation_payments (winery_id, reservation_id, provider, in_house, amount_cents)
         select winery_id, id, 'IN_HOUSE', true, $4::bigint from r)
       select (select id from e) as experience_id,
         (select array_agg(id::text order by id) from r) as reservation_ids,
         (select count(*)::int from s) as slots`,
      [wineryId, slotCount, RESERVATION_SLOT_PLACES, REFUNDABLE_CENTS, REFUNDABLE_RESERVATIONS],
    );
    const row = rows[0] as { experience_id: string; reservation_ids: string[]; slots: number };
    if (row.slots !== slotCount) throw new Error(`made ${row.slots} of ${slotCount} slots`);
    const first = Date.parse(`${RESERVATION_SLOTS_FROM}T00:00:00Z`);
    return {
      experienceId: row.experience_id,
      slotDates: Array.from({ length: slotCount }, (_, i) =>
        new Date(first + i * 86_400_000).toISOString().slice(0, 10),
      ),
      slotTime: RESERVATION_SLOT_TIME,
      refundReservationIds: row.reservation_ids,
    };
  }

  /**
   * Fresh planner statistics and visibility map after a bulk load, as long-lived tables have.
   * VACUUM too, not ANALYZE alone: a million inserted rows start autovacuum's insert-triggered
   * VACUUM of each table soon after, which would otherwise run during the scaling measurement on
   * the same CPUs, and until a table is vacuumed an index-only scan still reads the heap for every
   * row, which no long-lived table does.
   */
  async analyze(): Promise<void> {
    await this.query("vacuum analyze");
  }

  /** Rows in the scaled tables. */
  async counts(): Promise<Record<string, number>> {
    const tables = ["orders", "order_items", "receipts", "products", "contacts", "reservations"];
    const { rows } = await this.query(
      `select ${tables.map((t) => `(select count(*)::int from ${t}) as ${t}`).join(", ")}`,
    );
    return rows[0] as Record<string, number>;
  }
}
