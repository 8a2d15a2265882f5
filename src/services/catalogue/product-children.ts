import { type SQL, sql } from "drizzle-orm";
import { PRODUCT_CHILDREN, type ProductInput } from "../../schemas/product-input";

type Children = Pick<ProductInput, (typeof PRODUCT_CHILDREN)[number]>;

/** The children's statements' parameters: the ids, and each list as one JSON text. */
export const CHILD_PARAMS = ["wineryId", "productId", ...PRODUCT_CHILDREN] as const;
export type ChildParams = Record<(typeof CHILD_PARAMS)[number], unknown>;

/** childTemplates' parameters for these children (each list as one JSON text). */
export function childParams(wineryId: string, productId: string, c: Children): ChildParams {
  return {
    wineryId,
    productId,
    // As sent: a member left out stays out, so the upsert can keep the stored value (see below).
    categories: JSON.stringify(c.categories),
    channels: JSON.stringify(c.channels),
    attributeAssignments: JSON.stringify(c.attributeAssignments),
    metadata: JSON.stringify(c.metadata),
    files: JSON.stringify(c.files),
  };
}

/** A category's members (as CategoryInput names them) and their columns. */
const CATEGORY_MEMBERS = [
  ["parentCategoryId", "parent_category_id"],
  ["nameEn", "name_en"],
  ["nameIt", "name_it"],
  ["nameTranslationId", "name_translation_id"],
  ["nameTranslations", "name_translations"],
  ["descriptionTranslationId", "description_translation_id"],
  ["descriptionTranslations", "description_translations"],
  ["priority", "priority"],
] as const;

/** The category upsert's updates: a column is replaced only when the entry sent its member. */
const CATEGORY_SETS = CATEGORY_MEMBERS.map(
  ([member, column]) =>
    `${column} = case when (select s.e ? '${member}' from sent s where s.id = excluded.id)
      then excluded.${column} else categories.${column} end`,
).join(",\n        ");

/** Members of a file that are columns or answers, never kept in its free-form `data`. */
const FILE_COLUMNS = "array['id', 'productId', 'displayOrder', 'flags', 'updatedAt']";

/**
 * The statements that replace a product's children, to run in one batch after the product upsert.
 * They carry their rows as one jsonb parameter each, so an empty list is still a valid statement
 * and the text is the same for any product (every value a parameter: see put-product.ts).
 * Categories are upserted by id, a member left out keeping the stored value.
 * Files keep their ids: a file sent with the id of one of this product's files is updated in place
 * (E12 can keep addressing it), the product's files not sent are deleted, the rest are inserted.
 */
export function childTemplates(p: ChildParams): SQL[] {
  const { wineryId, productId } = p;
  const json = (value: unknown) => sql`${value}::jsonb`;
  // Categories are written only for a product of this winery (the upsert before these statements
  // creates or keeps it). For another winery's product id nothing is written and the PUT is 404:
  // its category links must not answer first (the primary key (product_id, category_id) would
  // refuse a link that winery has, a 409 telling which categories its product is in), nor may a
  // new category be created by a PUT that answers 404. The other children name the product in
  // a foreign key (winery_id, product_id), which refuses them for another winery's product.
  const ownProduct = sql`exists (select 1 from products
    where products.id = ${productId} and products.winery_id = ${wineryId})`;
  return [
    // A new category takes the defaults for the members left out (null, priority 0); an existing
    // one of this winery keeps them: each column is replaced only when its member was sent (`?`
    // on the element as sent), so `{ id }` alone just links the category.
    sql`
      with sent as (
        select x.e, r.* from jsonb_array_elements(${json(p.categories)}) as x(e)
        cross join lateral jsonb_to_record(x.e) as r(id uuid, "parentCategoryId" uuid,
          "nameEn" text, "nameIt" text, "nameTranslationId" text, "nameTranslations" jsonb,
          "descriptionTranslationId" text, "descriptionTranslations" jsonb, priority int))
      insert into categories (id, winery_id, parent_category_id, name_en, name_it,
        name_translation_id, name_translations, description_translation_id,
        description_translations, priority)
      select s.id, ${wineryId}, s."parentCategoryId", s."nameEn", s."nameIt",
        s."nameTranslationId", s."nameTranslations", s."descriptionTranslationId",
        s."descriptionTranslations", coalesce(s.priority, 0)
      from sent s
      where ${ownProduct}
      on conflict (id) do update set ${sql.raw(CATEGORY_SETS)}, updated_at = now()
      where categories.winery_id = excluded.winery_id`,
    sql`delete from product_categories
      where product_id = ${productId} and winery_id = ${wineryId}`,
    sql`
      insert into product_categories (winery_id, product_id, category_id)
      select ${wineryId}, ${productId}, r.id
      from jsonb_to_recordset(${json(p.categories)}) as r(id uuid)
      where ${ownProduct}`,
    sql`delete from product_channels
      where product_id = ${productId} and winery_id = ${wineryId}`,
    // A channel of another winery finds no sales channel: the NOT NULL refuses the whole batch.
    sql`
      insert into product_channels (winery_id, product_id, winery_channel_id, active,
        max_units_per_order, price_cents)
      select ${wineryId}, ${productId}, s.id, coalesce(r.active, true), r."maxUnitsPerOrder",
        r."priceCents"
      from jsonb_to_recordset(${json(p.channels)}) as r("wineryChannelId" uuid, active boolean,
        "maxUnitsPerOrder" int, "priceCents" bigint)
      left join sales_channels s on s.id = r."wineryChannelId" and s.winery_id = ${wineryId}`,
    sql`delete from product_attribute_assignments
      where product_id = ${productId} and winery_id = ${wineryId}`,
    // Values named by text are created on first use; the attribute's foreign key holds tenancy.
    sql`
      insert into attribute_values (winery_id, attribute_id, value)
      select ${wineryId}, r."attributeId", r.value
      from jsonb_to_recordset(${json(p.attributeAssignments)}) as r("attributeId" bigint, value text)
      where r.value is not null
      on conflict (attribute_id, value) do nothing`,
    sql`
      insert into product_attribute_assignments (winery_id, product_id, attribute_id,
        attribute_value_id)
      select ${wineryId}, ${productId}, r."attributeId", coalesce(r."attributeValueId",
        (select v.id from attribute_values v
         where v.attribute_id = r."attributeId" and v.value = r.value))
      from rows from (jsonb_to_recordset(${json(p.attributeAssignments)})
        as ("attributeId" bigint, "attributeValueId" bigint, value text))
        with ordinality as r("attributeId", "attributeValueId", value, n)
      order by r.n`,
    sql`delete from product_metadata
      where product_id = ${productId} and winery_id = ${wineryId}`,
    sql`
      insert into product_metadata (winery_id, product_id, metadata_name, metadata_value, active,
        validity_from, validity_to)
      select ${wineryId}, ${productId}, r."metadataName", r."metadataValue",
        coalesce(r.active, true), r."validityFrom", r."validityTo"
      from rows from (jsonb_to_recordset(${json(p.metadata)}) as ("metadataName" text,
        "metadataValue" text, active boolean, "validityFrom" date, "validityTo" date))
        with ordinality as r("metadataName", "metadataValue", active, "validityFrom",
        "validityTo", n)
      order by r.n`,
    sql`
      delete from product_files
      where product_id = ${productId} and winery_id = ${wineryId}
        and id not in (select (e->>'id')::bigint from jsonb_array_elements(${json(p.files)}) e
                       where e->>'id' is not null)`,
    sql`
      update product_files f set display_order = coalesce((e->>'displayOrder')::int, 0),
        flags = e->>'flags', data = e - ${sql.raw(FILE_COLUMNS)}, updated_at = now()
      from jsonb_array_elements(${json(p.files)}) e
      where f.id = (e->>'id')::bigint and f.product_id = ${productId}
        and f.winery_id = ${wineryId}`,
    sql`
      insert into product_files (winery_id, product_id, display_order, flags, data)
      select ${wineryId}, ${productId}, coalesce((x.e->>'displayOrder')::int, 0), x.e->>'flags',
        x.e - ${sql.raw(FILE_COLUMNS)}
      from jsonb_array_elements(${json(p.files)}) with ordinality as x(e, n)
      where not exists (select 1 from product_files f
        where f.id = (x.e->>'id')::bigint and f.product_id = ${productId}
          and f.winery_id = ${wineryId})
      order by x.n`,
  ];
}
