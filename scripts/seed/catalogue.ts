import { and, eq, inArray, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import * as schema from "../../src/db/schema";
import { ProductInputSchema } from "../../src/schemas/product-input";
import { putProduct } from "../../src/services/catalogue/put-product";

type Db = NodePgDatabase<typeof schema>;

/** Fixed demo ids, so running the seed twice adds nothing. */
const id = (n: number) => `ca7a1090-0000-4000-8000-${String(n).padStart(12, "0")}`;
const IDS = {
  pos: id(1),
  b2b: id(2),
  reds: id(10),
  whites: id(11),
  gifts: id(12),
  brunello: id(20),
  rossoMaster: id(21),
  rosso75: id(22),
  rossoMagnum: id(23),
  vermentino: id(24),
  bundle: id(25),
  giftCard: id(26),
  grappa: id(27),
  brunello2020: id(28),
  wineClub: id(30),
  trade: id(31),
};

const file = (name: string, flags = "MAIN") => ({
  url: `https://cdn.example.com/catalogue/${name}.jpg`,
  mime: "image/jpeg",
  alt: name,
  displayOrder: 0,
  flags,
});

/**
 * A realistic catalogue for the demo winery: reds, a white, a wine with two formats as variants, a
 * tasting bundle, a gift card, an inactive grappa and a DRAFT vintage (one channel, inactive),
 * priced differently on three channels (the white's trade channel inactive), with grape and vintage
 * attributes in Italian and English; and two customer classes (a yearly wine club, a trade class).
 */
export async function seedCatalogue(
  db: Db,
  wineryId: string,
): Promise<Record<string, string | number>> {
  await db
    .insert(schema.salesChannels)
    .values([
      { id: IDS.pos, wineryId, name: "Enoteca (POS)", apiChannelKey: `pos-${wineryId}` },
      { id: IDS.b2b, wineryId, name: "B2B horeca", apiChannelKey: `b2b-${wineryId}` },
    ])
    .onConflictDoNothing();
  const [web] = await db
    .select({ id: schema.salesChannels.id })
    .from(schema.salesChannels)
    .where(
      and(
        eq(schema.salesChannels.wineryId, wineryId),
        sql`${schema.salesChannels.id} not in (${IDS.pos}, ${IDS.b2b})`,
      ),
    )
    .limit(1);
  const webId = web?.id ?? IDS.pos;

  await db
    .insert(schema.attributes)
    .values([
      {
        wineryId,
        code: "grape",
        names: { it: "Vitigno", en: "Grape" },
        applicableToTypes: ["WINE"],
      },
      {
        wineryId,
        code: "vintage",
        names: { it: "Annata", en: "Vintage" },
        valueType: "NUMBER",
        applicableToTypes: ["WINE"],
        displayOrder: 1,
      },
    ])
    .onConflictDoNothing();
  const attrs = await db
    .select({ id: schema.attributes.id, code: schema.attributes.code })
    .from(schema.attributes)
    .where(
      and(
        eq(schema.attributes.wineryId, wineryId),
        inArray(schema.attributes.code, ["grape", "vintage"]),
      ),
    );
  const grape = attrs.find((a) => a.code === "grape")?.id as number;
  const vintage = attrs.find((a) => a.code === "vintage")?.id as number;

  const reds = {
    id: IDS.reds,
    nameIt: "Vini rossi",
    nameEn: "Red wines",
    nameTranslations: { it: "Vini rossi", en: "Red wines" },
    priority: 1,
  };
  const whites = {
    id: IDS.whites,
    nameIt: "Vini bianchi",
    nameEn: "White wines",
    nameTranslations: { it: "Vini bianchi", en: "White wines" },
    priority: 2,
  };
  const gifts = {
    id: IDS.gifts,
    nameIt: "Idee regalo",
    nameEn: "Gifts",
    nameTranslations: { it: "Idee regalo", en: "Gifts" },
    priority: 3,
  };
  const prices = (web: number, pos: number, b2b: number) => [
    { wineryChannelId: webId, priceCents: web, maxUnitsPerOrder: 36 },
    { wineryChannelId: IDS.pos, priceCents: pos },
    { wineryChannelId: IDS.b2b, priceCents: b2b, maxUnitsPerOrder: 120 },
  ];
  const wine = (name: string, year: number, grapeName: string) => ({
    nameIt: `${name} ${year}`,
    nameEn: `${name} ${year}`,
    nameTranslations: { it: `${name} ${year}`, en: `${name} ${year}` },
    status: "PUBLISHED",
    typeId: "WINE",
    priceCurrency: "EUR",
    defaultVatRate: 22,
    unitsPerCase: 6,
    weight: 1.3,
    attributeAssignments: [
      { attributeId: grape, value: grapeName },
      { attributeId: vintage, value: String(year) },
    ],
  });

  const products: [string, Record<string, unknown>][] = [
    [
      IDS.brunello,
      {
        ...wine("Brunello di Montalcino DOCG", 2019, "Sangiovese"),
        // The sku the demo orders, receipts, session and BRUNELLO15's coupon rule name.
        sku: "BRUNELLO-2019",
        priceCents: 4500,
        displayOrder: 1,
        categories: [reds, gifts],
        channels: prices(4500, 4200, 3400),
        inventoryTrackingActive: true,
        inventoryQuantity: 240,
        metadata: [{ metadataName: "denomination", metadataValue: "DOCG" }],
        files: [file("brunello-2019"), file("brunello-2019-label", "GALLERY")],
      },
    ],
    [
      IDS.rossoMaster,
      {
        ...wine("Rosso di Montalcino DOC", 2022, "Sangiovese"),
        sku: "ROSSO-2022",
        priceCents: 1800,
        variantMinPriceCents: 1800,
        hasVariants: true,
        variantCount: 2,
        displayOrder: 2,
        categories: [reds],
        channels: prices(1800, 1700, 1300),
        files: [file("rosso-2022")],
      },
    ],
    [
      IDS.rosso75,
      {
        ...wine("Rosso di Montalcino DOC 75cl", 2022, "Sangiovese"),
        sku: "ROSSO-2022-75",
        variantMasterId: IDS.rossoMaster,
        priceCents: 1800,
        displayOrder: 3,
        showWebsite: false,
        categories: [reds],
        channels: prices(1800, 1700, 1300),
        files: [file("rosso-2022-75")],
      },
    ],
    [
      IDS.rossoMagnum,
      {
        ...wine("Rosso di Montalcino DOC Magnum", 2022, "Sangiovese"),
        sku: "ROSSO-2022-150",
        variantMasterId: IDS.rossoMaster,
        priceCents: 4200,
        unitsPerCase: 3,
        weight: 2.6,
        displayOrder: 4,
        showWebsite: false,
        categories: [reds],
        channels: prices(4200, 3900, 3200),
        files: [file("rosso-2022-magnum")],
      },
    ],
    [
      IDS.vermentino,
      {
        ...wine("Vermentino Toscana IGT", 2023, "Vermentino"),
        sku: "VERM-2023",
        priceCents: 1400,
        displayOrder: 5,
        categories: [whites],
        // Out of stock for the trade: E10's activeChannelsOnly leaves this channel out.
        channels: prices(1400, 1300, 950).map((c) =>
          c.wineryChannelId === IDS.b2b ? { ...c, active: false } : c,
        ),
        files: [file("vermentino-2023")],
      },
    ],
    [
      IDS.bundle,
      {
        nameIt: "Cassetta degustazione (3 bottiglie)",
        nameEn: "Tasting box (3 bottles)",
        sku: "BOX-TASTING",
        typeId: "BUNDLE",
        isBundle: true,
        status: "PUBLISHED",
        priceCents: 7200,
        priceCurrency: "EUR",
        defaultVatRate: 22,
        displayOrder: 6,
        categories: [gifts],
        channels: prices(7200, 6900, 6000).slice(0, 2),
        files: [file("tasting-box")],
      },
    ],
    [
      IDS.giftCard,
      {
        nameIt: "Carta regalo 50 €",
        nameEn: "Gift card €50",
        sku: "GIFT-50",
        typeId: "GIFT_CARD",
        isGiftCard: true,
        status: "PUBLISHED",
        priceCents: 5000,
        priceCurrency: "EUR",
        defaultVatRate: 0,
        showPos: true,
        displayOrder: 7,
        categories: [gifts],
        channels: prices(5000, 5000, 5000).slice(0, 2),
        files: [file("gift-card")],
      },
    ],
    [
      // Inactive (no longer made; the demo orders sold it): E10 lists it with includeInactive only.
      IDS.grappa,
      {
        nameIt: "Grappa di Brunello 50cl",
        nameEn: "Grappa di Brunello 50cl",
        sku: "GRAPPA-50",
        typeId: "SPIRIT",
        status: "PUBLISHED",
        active: false,
        priceCents: 3200,
        priceCurrency: "EUR",
        defaultVatRate: 22,
        displayOrder: 8,
        categories: [gifts],
        channels: prices(3200, 3000, 2500).slice(0, 2),
        files: [file("grappa-50")],
      },
    ],
    [
      // Next year's vintage, not released: status DRAFT (E10's statuses) and only an inactive
      // channel (E10's activeChannelsOnly leaves the product out).
      IDS.brunello2020,
      {
        ...wine("Brunello di Montalcino DOCG", 2020, "Sangiovese"),
        sku: "BRUNELLO-2020",
        status: "DRAFT",
        priceCents: 4800,
        displayOrder: 9,
        showWebsite: false,
        categories: [reds],
        channels: [{ wineryChannelId: webId, priceCents: 4800, active: false }],
        files: [file("brunello-2020")],
      },
    ],
  ];
  const existing = new Set(
    (
      await db
        .select({ id: schema.products.id })
        .from(schema.products)
        .where(
          inArray(
            schema.products.id,
            products.map(([pid]) => pid),
          ),
        )
    ).map((p) => p.id),
  );
  // The Brunello is the product whose file the seed prints for E12 (fileId): one left without
  // files (a PUT through the API replaces a product's files) is put back as seeded, so that the
  // printed ids work again (an outside audit found fileId silently missing).
  const brunelloFiles = await db
    .select({ id: schema.productFiles.id })
    .from(schema.productFiles)
    .where(eq(schema.productFiles.productId, IDS.brunello))
    .limit(1);
  if (brunelloFiles.length === 0) existing.delete(IDS.brunello);
  for (const [productId, body] of products) {
    if (existing.has(productId)) continue;
    // Through the same schema and service as PUT /v2/product-catalog/products/{id}.
    await putProduct(db, wineryId, productId, ProductInputSchema.parse(body));
  }

  await db
    .insert(schema.customerClasses)
    .values([
      {
        id: IDS.wineClub,
        wineryId,
        classId: 1,
        className: "Club Brunello",
        classType: "WINE_CLUB",
        discountRate: 10,
        caseDiscountRate: 15,
        isPaid: true,
        price: 240,
        priceType: "YEARLY",
        validityDate: new Date("2027-01-31T23:59:59.999Z"),
      },
      {
        id: IDS.trade,
        wineryId,
        classId: 2,
        className: "Horeca trade",
        classType: "TRADE",
        discountRate: 25,
        caseDiscountRate: 30,
        price: 0,
        priceType: "UNA_TANTUM",
      },
    ])
    .onConflictDoNothing();

  // The next class created through the API must number past every class that exists.
  await db.execute(sql`
    insert into winery_counters (winery_id, name, value)
    select ${wineryId}, 'customer_class', coalesce(max(class_id), 0)
    from customer_classes where winery_id = ${wineryId}
    on conflict (winery_id, name)
      do update set value = greatest(winery_counters.value, excluded.value)`);

  // E12 and E15 take these: the Brunello's first file and the grape attribute.
  const [brunelloFile] = await db
    .select({ id: schema.productFiles.id })
    .from(schema.productFiles)
    .where(eq(schema.productFiles.productId, IDS.brunello))
    .orderBy(schema.productFiles.id)
    .limit(1);
  return {
    productId: IDS.brunello,
    customerClassId: IDS.wineClub,
    attributeId: grape,
    ...(brunelloFile && { fileId: brunelloFile.id }),
  };
}
