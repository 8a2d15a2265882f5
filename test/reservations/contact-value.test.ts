import { beforeAll, describe, expect, it } from "vitest";
import type { ContactExportV3 } from "../../src/schemas/contacts";
import { api } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder } from "../helpers/orders";
import {
  contact,
  experienceWithSlot,
  importOk,
  refundOk,
  reservationBody,
} from "../helpers/reservations";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

async function contactValueOf(email: string): Promise<number | undefined> {
  const now = Date.now();
  const response = await api("/v3/contacts/query", {
    key: tenant.apiKey,
    body: {
      dateFrom: new Date(now - 3_600_000).toISOString(),
      dateTo: new Date(now + 3_600_000).toISOString(),
    },
  });
  expect(response.status).toBe(200);
  const contacts = (await response.json()) as ContactExportV3[];
  return contacts.find((c) => c.emails[0]?.email === email)?.contactValue;
}

describe("E17 contactValue counts reservations' in-house payments net of refunds", () => {
  it("after a reservation payment and a refund, for the MASTER and the SECONDARY contact", async () => {
    const target = await experienceWithSlot(tenant);
    const master = `${crypto.randomUUID()}@example.com`;
    const secondary = `${crypto.randomUUID()}@example.com`;
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody(target, {
        paidTotalCents: 5000,
        reservationContacts: [contact("MASTER", master), contact("SECONDARY", secondary)],
      }),
    );
    expect(await contactValueOf(master)).toBe(50);
    await refundOk(tenant, reservation.id, 1250);
    expect(await contactValueOf(master)).toBe(37.5);
    expect(await contactValueOf(secondary)).toBe(37.5);
  });

  it("adds reservations to the contact's orders (E11 links a contact once: the same email twice is 400)", async () => {
    const target = await experienceWithSlot(tenant);
    const email = `${crypto.randomUUID()}@example.com`;
    const order = await api(`/v4/order-import/${tenant.apiChannelKey}`, {
      key: tenant.apiKey,
      body: externalOrder({ buyerEmail: email }), // amountCents 7480
    });
    expect(order.status).toBe(200);
    await importOk(
      tenant,
      "NEW",
      reservationBody(target, {
        paidTotalCents: 2000,
        reservationContacts: [contact("MASTER", email), contact("SECONDARY")],
      }),
    );
    expect(await contactValueOf(email)).toBe(94.8);
  });
});
