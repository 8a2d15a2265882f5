import { type SQL, sql } from "drizzle-orm";
import { type RawStatement, renderedOnce } from "../../db/raw-batch";

/**
 * The ProductCatalogProduct document, built by Postgres as JSON text: one statement for any number
 * of products (an index lookup per child collection and product inside it, no query per row in
 * the Worker), and the Worker passes the text through without parsing it.
 */

const ts = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const day = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

// row_to_json of a select list: JSON text built directly (no jsonb round trip per product, no
// 100-argument limit of json_build_object). Aliases are the wire names.
const PRODUCT_COLUMNS = `
  p.id as "id",
  p.winery_id as "wineryId",
  p.product_id as "productId",
  p.variant_master_id as "variantMasterId",
  p.fiscal_nature_id as "fiscalNatureId",
  p.point_of_sale_suite_id as "pointOfSaleSuiteId",
  p.active as "active",
  p.status as "status",
  p.display_status as "displayStatus",
  p.type_id as "typeId",
  p.sku as "sku",
  p.barcode as "barcode",
  p.name_en as "nameEn",
  p.name_it as "nameIt",
  p.description_en as "descriptionEn",
  p.description_it as "descriptionIt",
  p.name_translation_id as "nameTranslationId",
  p.description_translation_id as "descriptionTranslationId",
  p.short_description_translation_id as "shortDescriptionTranslationId",
  p.meta_title_translation_id as "metaTitleTranslationId",
  p.meta_description_translation_id as "metaDescriptionTranslationId",
  p.pos_name_translation_id as "posNameTranslationId",
  p.name_translations as "nameTranslations",
  p.description_translations as "descriptionTranslations",
  p.pos_name_translations as "posNameTranslations",
  p.price_cents as "priceCents",
  p.variant_min_price_cents as "variantMinPriceCents",
  p.price_currency as "priceCurrency",
  p.default_vat_rate as "defaultVatRate",
  p.display_order as "displayOrder",
  p.inventory_quantity as "inventoryQuantity",
  p.ordering_all as "orderingAll",
  p.ordering_category as "orderingCategory",
  p.units_per_case as "unitsPerCase",
  p.variant_count as "variantCount",
  p.has_variants as "hasVariants",
  p.inventory_tracking_active as "inventoryTrackingActive",
  p.is_bundle as "isBundle",
  p.is_gift_card as "isGiftCard",
  p.show_pos as "showPos",
  p.show_website as "showWebsite",
  ${ts("p.published_at")} as "publishedAt",
  ${day("p.validity_from")} as "validityFrom",
  ${day("p.validity_to")} as "validityTo",
  p.weight as "weight"`;

/** A file answers as its stored members with the columns on top (the columns win). */
export const FILE_JSON = (f: string) => `${f}.data || jsonb_build_object(
  'id', ${f}.id, 'productId', ${f}.product_id, 'displayOrder', ${f}.display_order,
  'flags', ${f}.flags, 'updatedAt', ${ts(`${f}.updated_at`)}
)`;

// Each child's JSON object and order, shared by the list and the single product (productDocument),
// so both build the same bytes.
const CATEGORY_ITEM = (productsCount: string) => `json_build_object(
      'id', c.id, 'categoryId', json_build_object('id', c.id), 'wineryId', c.winery_id,
      'parentCategoryId', c.parent_category_id, 'nameEn', c.name_en, 'nameIt', c.name_it,
      'nameTranslationId', c.name_translation_id, 'nameTranslations', c.name_translations,
      'descriptionTranslationId', c.description_translation_id,
      'descriptionTranslations', c.description_translations, 'priority', c.priority,
      'productsCount', ${productsCount}
    ) order by c.priority, c.id`;
const CHANNEL_ITEM = `json_build_object(
      'id', ch.id, 'wineryChannelId', ch.winery_channel_id, 'active', ch.active,
      'maxUnitsPerOrder', ch.max_units_per_order, 'priceCents', ch.price_cents
    ) order by ch.winery_channel_id`;
const ASSIGNMENT_ITEM = `json_build_object(
      'id', a.id, 'productId', a.product_id, 'attributeId', a.attribute_id,
      'attributeValueId', a.attribute_value_id, 'createdAt', ${ts("a.created_at")}
    ) order by a.id`;
const METADATA_ITEM = `json_build_object(
      'id', m.id, 'productId', m.product_id, 'metadataName', m.metadata_name,
      'metadataValue', m.metadata_value, 'active', m.active,
      'validityFrom', ${day("m.validity_from")}, 'validityTo', ${day("m.validity_to")},
      'updatedAt', ${ts("m.updated_at")}
    ) order by m.id`;
const FILE_ITEM = `${FILE_JSON("f")} order by f.display_order, f.id`;

/**
 * A product's document (`p`) with a correlated subquery per child collection, each an index
 * lookup on the child's product_id: E10's list and the single product build the same bytes. For
 * the catalogues wineries have (tens to a few thousand products) this is cheaper to plan and to
 * run than a grouped aggregate per collection joined back by product id (the form before: its
 * five grouped joins and their hash tables cost several times the lookups at 8 products).
 * `categoryCount` is a category's (`c`) productsCount, `categoryJoin` a join it needs;
 * `activeChannelsOnly` lists only active channels.
 */
const productDocument = (
  categoryCount: string,
  categoryJoin: string,
  activeChannelsOnly: boolean,
) =>
  `(select row_to_json(doc) from (select
  ${PRODUCT_COLUMNS},
  coalesce((select json_agg(${CATEGORY_ITEM(categoryCount)})
    from product_categories pc
    join categories c on c.winery_id = pc.winery_id and c.id = pc.category_id${categoryJoin}
    where pc.product_id = p.id), '[]'::json) as "categories",
  coalesce((select json_agg(${CHANNEL_ITEM})
    from product_channels ch where ch.product_id = p.id${activeChannelsOnly ? " and ch.active" : ""}), '[]'::json) as "channels",
  coalesce((select json_agg(${ASSIGNMENT_ITEM})
    from product_attribute_assignments a where a.product_id = p.id), '[]'::json) as "attributeAssignments",
  coalesce((select json_agg(${METADATA_ITEM})
    from product_metadata m where m.product_id = p.id), '[]'::json) as "metadata",
  coalesce((select json_agg(${FILE_ITEM})
    from product_files f where f.product_id = p.id), '[]'::json) as "files"
) doc)`;

/** One product: each of its categories counted where it is listed (one index range each). */
const SINGLE_PRODUCT_DOCUMENT = productDocument(
  `(select count(*)::int from product_categories x
        where x.category_id = c.id and x.winery_id = c.winery_id)`,
  "",
  false,
);

/**
 * A product of E10's list: its categories' counts from the statement's `category_counts`, counted
 * once for the winery (a count per listed category and product would grow with the square of a
 * category's size).
 */
const LIST_PRODUCT_DOCUMENT = (activeChannelsOnly: boolean) =>
  productDocument(
    "coalesce(counts.n, 0)",
    "\n    left join category_counts counts on counts.category_id = c.id",
    activeChannelsOnly,
  );

/** E10's filters; a filter left out or null does not filter. */
export interface ProductFilter {
  includeInactive?: boolean | null;
  activeChannelsOnly?: boolean | null;
  categoryId?: string | null;
  statuses?: string[] | null;
}

/**
 * One statement answering `body`: the JSON array text of the winery's products that pass the
 * filter, ordered by displayOrder then id. A product is selected from `products` and its
 * categories only aggregated, so one in two categories appears once.
 *
 * Fixed text with its parameters: the text depends only on which filters are set (16 shapes),
 * each rendered once per isolate (renderedOnce), so a call renders nothing.
 */
export function productsJsonRaw(wineryId: string, filter: ProductFilter): RawStatement {
  const shape = [
    filter.includeInactive === true,
    (filter.statuses?.length ?? 0) > 0,
    Boolean(filter.categoryId),
    filter.activeChannelsOnly === true,
  ] as const;
  const key = shape.map(Number).join("");
  let render = renderedShapes.get(key);
  if (!render) {
    const [includeInactive, statuses, categoryId, activeChannelsOnly] = shape;
    render = renderedOnce(["wineryId", "statuses", "categoryId"], (m) =>
      productsStatement(m.wineryId, {
        includeInactive,
        activeChannelsOnly,
        statuses: statuses ? m.statuses : undefined,
        categoryId: categoryId ? m.categoryId : undefined,
      }),
    );
    renderedShapes.set(key, render);
  }
  return render({
    wineryId,
    statuses: JSON.stringify(filter.statuses ?? []),
    categoryId: filter.categoryId,
  });
}

const renderedShapes = new Map<
  string,
  (values: Record<"wineryId" | "statuses" | "categoryId", unknown>) => RawStatement
>();

/** The list statement; `statuses` is the JSON text of the statuses (one jsonb parameter). */
function productsStatement(
  wineryId: string,
  filter: Omit<ProductFilter, "statuses"> & { statuses?: string },
): SQL {
  const conditions: SQL[] = [sql`p.winery_id = ${wineryId}`];
  if (!filter.includeInactive) conditions.push(sql`p.active`);
  if (filter.statuses !== undefined) {
    // As one jsonb parameter: drizzle would spread a JS array into a list of parameters.
    conditions.push(sql`p.status in (select jsonb_array_elements_text(${filter.statuses}::jsonb))`);
  }
  if (filter.categoryId) {
    conditions.push(
      sql`exists (select 1 from product_categories x where x.product_id = p.id and x.category_id = ${filter.categoryId})`,
    );
  }
  if (filter.activeChannelsOnly) {
    conditions.push(
      sql`exists (select 1 from product_channels x where x.product_id = p.id and x.active)`,
    );
  }
  const where = sql.join(conditions, sql` and `);
  return sql`
    -- Materialized: referenced once, Postgres would otherwise inline the count into every product.
    -- Through the winery's categories: product_categories is indexed by category, not by winery.
    with category_counts as materialized (
      select pc.category_id, count(*)::int as n
      from categories c
      join product_categories pc on pc.category_id = c.id and pc.winery_id = c.winery_id
      where c.winery_id = ${wineryId}
      group by pc.category_id
    )
    select coalesce(json_agg(${sql.raw(LIST_PRODUCT_DOCUMENT(filter.activeChannelsOnly === true))}),
      '[]')::text as body
    from (
      -- The products sorted here, before their documents are built (by the aggregate, row by row,
      -- in the order of its input): json_agg(... order by) would sort the finished documents
      -- (megabytes of them), spilling to disk. A subquery with an ORDER BY is never merged into
      -- the query above it.
      select p.* from products p
      where ${where}
      order by p.display_order, p.id
    ) p`;
}

/**
 * One statement answering `body`: the JSON text of one product of the winery (inactive ones too),
 * or no row. The same document as productsJsonRaw's elements, through correlated subqueries.
 */
export function productJsonStatement(wineryId: unknown, productId: unknown): SQL {
  return sql`select ${sql.raw(SINGLE_PRODUCT_DOCUMENT)}::text as body
    from products p where p.winery_id = ${wineryId} and p.id = ${productId}`;
}
