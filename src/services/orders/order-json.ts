import { type SQL, sql } from "drizzle-orm";

/**
 * The Order document (the one wire shape of E1, GET, E2 and E20: OrderSchema in
 * src/schemas/orders.ts), built by Postgres as JSON text for E20's pages: the Worker passes the
 * text through instead of parsing every order and item into objects and serialising them again.
 * Keys in OrderSchema's order;
 * jsonb members come out as Postgres writes jsonb text (the same values, other whitespace).
 */

const ts = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const ITEMS = `coalesce((
  select json_agg(json_build_object(
    'id', i.id, 'amountCents', i.amount_cents, 'amountDiscountCents', i.amount_discount_cents,
    'attributesSnapshot', i.attributes_snapshot, 'commercialDiscounts', i.commercial_discounts,
    'discounts', i.discounts, 'externalId', i.external_id, 'extraMetadata', i.extra_metadata,
    'name', i.name, 'pricingBreakdown', i.pricing_breakdown, 'quantity', i.quantity, 'sku', i.sku,
    'type', i.type, 'unitPriceCents', i.unit_price_cents, 'vatPercentage', i.vat_percentage
  ) order by i.line_index)
  from order_items i where i.order_id = o.id
), '[]'::json)`;

/** row_to_json of a select list: no 100-argument limit, aliases are the wire names. */
const ORDER_DOCUMENT = `(select row_to_json(doc) from (select
  o.id as "id",
  o.external_id as "externalId",
  ch.api_channel_key as "channel",
  o.plugin_tag as "tagName",
  case when o.source_external_id is not null or o.source_external_type is not null
    then json_build_object('id', coalesce(o.source_external_id, ''), 'type', coalesce(o.source_external_type, ''))
  end as "sourceExternal",
  o.address as "address",
  o.address_name as "addressName",
  o.city as "city",
  o.country_iso as "countryIso",
  o.province as "province",
  o.region as "region",
  o.zipcode as "zipcode",
  o.amount_cents as "amountCents",
  o.amount_discount_cents as "amountDiscountCents",
  o.amount_excise_duty_cents as "amountExciseDutyCents",
  o.amount_vat_cents as "amountVatCents",
  o.amount_shipment_cents as "amountShipmentCents",
  o.amount_vat_percentage as "amountVatPercentage",
  o.buyer_email as "buyerEmail",
  o.buyer_firstname as "buyerFirstname",
  o.buyer_lastname as "buyerLastname",
  o.buyer_phone as "buyerPhone",
  to_char(o.order_date, 'YYYY-MM-DD') as "date",
  o.extra_metadata as "extraMetadata",
  o.user_metadata as "userMetadata",
  o.marketing_manual as "marketingManual",
  o.notes as "notes",
  o.payment_method as "paymentMethod",
  o.schema_version as "schemaVersion",
  o.status as "status",
  o.quantity as "quantity",
  ${ts("o.source_synced_at")} as "sourceSyncedAt",
  o.totals as "totals",
  ${ITEMS} as "items",
  ${ts("o.created_at")} as "createdAt",
  ${ts("o.updated_at")} as "updatedAt"
) doc)`;

export interface OrdersPageQuery {
  /** Rows of `orders o` that belong to the answer (winery and range). */
  where: SQL;
  limit: number;
  offset: number;
}

/**
 * One statement answering `body`: the OrderPage JSON text ({ orders, total, limit, offset,
 * hasMore }) of the orders passing `where`, ordered by (order date, id). Count and page are read
 * in one statement, so from one snapshot: `total` and `hasMore` agree with the page.
 */
export function ordersPageJsonStatement({ where, limit, offset }: OrdersPageQuery): SQL {
  return sql`
    with page as (
      select o.id from orders o where ${where}
      order by o.order_date, o.id limit ${limit} offset ${offset}
    ),
    counted as (select count(*)::int as total from orders o where ${where})
    select json_build_object(
      'orders', coalesce((
        select json_agg(${sql.raw(ORDER_DOCUMENT)} order by o.order_date, o.id)
        from page join orders o on o.id = page.id
        left join sales_channels ch on ch.id = o.channel_id
      ), '[]'::json),
      'total', counted.total,
      'limit', ${limit}::int,
      'offset', ${offset}::int,
      'hasMore', ${offset}::int + (select count(*) from page) < counted.total
    )::text as body
    from counted`;
}

/** The Order document (one json value) of the order `o` that `where` picks. */
export function orderDocumentWhere(where: SQL): SQL {
  return sql`select ${sql.raw(ORDER_DOCUMENT)}
    from orders o left join sales_channels ch on ch.id = o.channel_id
    where ${where}`;
}

/**
 * The order `$1` of the winery `$2` as one json value, `order` (ORDER_DOCUMENT; no row when there
 * is none): the read-back of the writes answering one Order. The driver parses the json into
 * OrderSchema's values (bigint and float8 as numbers, jsonb members as parsed JSON, timestamps of
 * millisecond precision as ISO instants in UTC), without drizzle's relational query or a mapping
 * of the row in the Worker.
 */
export const ORDER_BY_ID_SQL = `select ${ORDER_DOCUMENT} as "order"
from orders o left join sales_channels ch on ch.id = o.channel_id
where o.id = $1 and o.winery_id = $2`;
