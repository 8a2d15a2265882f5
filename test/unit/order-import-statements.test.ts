import { describe, expect, it } from "vitest";
import { ITEM_JSON_COLUMNS, ORDER_JSON_COLUMNS } from "../../src/services/orders/import-order";
import { itemValues, orderValues } from "../../src/services/orders/order-record";

// E1's statements are fixed text listing the columns they fill from one jsonb parameter each
// (jsonb_populate_record); a column orderValues or itemValues gains must be listed there too, or
// the import would silently drop it.
describe("E1's fixed statements", () => {
  const order = {
    id: "EXT-1",
    amountCents: 1000,
    items: [{ name: "Rosso", quantity: 1, unitPriceCents: 1000 }],
  };

  it("write every column of orderValues but channel_id (resolved from apiChannelKey)", () => {
    const keys = Object.keys(orderValues(order as never, { wineryId: "w" })).filter(
      (k) => k !== "channelId",
    );
    expect([...ORDER_JSON_COLUMNS].sort()).toEqual(keys.sort());
  });

  it("write every column of itemValues", () => {
    const [item] = itemValues(order as never, "w");
    expect([...ITEM_JSON_COLUMNS].sort()).toEqual(Object.keys(item ?? {}).sort());
  });
});
