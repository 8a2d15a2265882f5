import { beforeAll, describe, expect, it } from "vitest";
import type { Contact } from "../../src/schemas/contacts";
import type { Order } from "../../src/schemas/orders";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importedOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let contactIds: number[];
beforeAll(async () => {
  tenant = await createTenant();
  contactIds = [];
  for (const name of ["Ada", "Bruno"]) {
    const response = await api("/v2/contacts", {
      key: tenant.apiKey,
      body: {
        contactType: "SECONDARY",
        countryIso: "IT",
        email: `${name}.${crypto.randomUUID()}@example.com`,
        firstName: name,
        lastName: "Test",
        phoneNumber: "1",
      },
    });
    contactIds.push(((await response.json()) as Contact).id);
  }
});

const put = (order: { id: number }, body: unknown, key = tenant.apiKey) =>
  api(`/v4/orders/${order.id}`, { key, method: "PUT", body });
const get = (id: number | string, key = tenant.apiKey) => api(`/v4/orders/${id}`, { key });

describe("GET /v4/orders/{id}", () => {
  it("answers the order as E1 answered it, byte for byte", async () => {
    const imported = await api(`/v4/order-import/${tenant.apiChannelKey}`, {
      key: tenant.apiKey,
      body: externalOrder(),
    });
    expect(imported.status).toBe(200);
    const text = await imported.text();
    const response = await get((JSON.parse(text) as Order).id);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(text);
  });

  it("costs one round trip", async () => {
    const order = await importedOrder(tenant);
    const { result, trips } = await countRoundTrips(() => get(order.id));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it.each(["0", "abc", "1.5", "99999999999999999999"])(
    "answers 400 naming the path id for %j",
    async (id) => {
      const problem = await expectProblem(await get(id), 400, "VALIDATION_ERROR");
      expect(problem.errors?.[0]?.path).toBe("id");
    },
  );

  it("answers 404 for an unknown id", async () => {
    await expectProblem(await get(987654321), 404, "NOT_FOUND");
  });
});

describe("E2 PUT /v4/orders/{id}: happy", () => {
  it("updates fields and replaces metadata entirely", async () => {
    const order = await importedOrder(tenant, { userMetadata: { a: 1, nested: { keep: true } } });
    const response = await put(order, {
      status: "SHIPPED",
      notes: "left at the door",
      userMetadata: { b: 2 },
      expectedUpdatedAt: order.updatedAt,
    });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as Order;
    expect(updated).toMatchObject({
      id: order.id,
      status: "SHIPPED",
      notes: "left at the door",
      userMetadata: { b: 2 },
      extraMetadata: order.extraMetadata,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(order.updatedAt));
    expect(updated.createdAt).toBe(order.createdAt);
    expect(updated.items).toEqual(order.items);
    expect(await (await get(order.id)).json()).toEqual(updated);
  });

  it("keeps metadata on null and keeps fields that are absent", async () => {
    const order = await importedOrder(tenant);
    const updated = (await (
      await put(order, { userMetadata: null, extraMetadata: null })
    ).json()) as Order;
    expect(updated).toMatchObject({
      userMetadata: order.userMetadata,
      extraMetadata: order.extraMetadata,
      status: order.status,
      notes: order.notes,
    });
  });

  it("takes expectedUpdatedAt null as no lock (a client that serialises unset fields as null)", async () => {
    const order = await importedOrder(tenant);
    await put(order, { notes: "changed meanwhile" });
    const response = await put(order, { notes: "mine", expectedUpdatedAt: null });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as Order).notes).toBe("mine");
  });

  it("matches an expectedUpdatedAt taken from an E1 answer, every time (the microsecond trap)", async () => {
    for (let i = 0; i < 25; i++) {
      const order = await importedOrder(tenant);
      const response = await put(order, { status: `S${i}`, expectedUpdatedAt: order.updatedAt });
      expect(response.status, `attempt ${i}`).toBe(200);
      const again = (await response.json()) as Order;
      // And the answer's updatedAt is itself a valid token for the next change.
      expect(
        (await put(again, { status: "NEXT", expectedUpdatedAt: again.updatedAt })).status,
      ).toBe(200);
    }
  });

  it("stores userMetadata with its secondaryContacts exactly as sent, string ids and extra members included", async () => {
    const order = await importedOrder(tenant);
    const userMetadata = {
      ...order.userMetadata,
      secondaryContacts: [
        { contactId: String(contactIds[0]), amountCents: 1000, role: "gift-giver" },
        { contactId: contactIds[1], amountCents: 480, note: { nested: [1, "2"] } },
      ],
      tag: "x",
    };
    const response = await put(order, { userMetadata });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Order).userMetadata).toStrictEqual(userMetadata);
    expect(((await (await get(order.id)).json()) as Order).userMetadata).toStrictEqual(
      userMetadata,
    );
  });

  it("stores a null secondaryContacts as sent, with nothing to check", async () => {
    const order = await importedOrder(tenant);
    const userMetadata = { secondaryContacts: null, tag: "y" };
    const response = await put(order, { userMetadata });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Order).userMetadata).toStrictEqual(userMetadata);
  });

  it("costs one round trip", async () => {
    const order = await importedOrder(tenant);
    const { result, trips } = await countRoundTrips(() =>
      put(order, {
        status: "X",
        expectedUpdatedAt: order.updatedAt,
        userMetadata: { secondaryContacts: [{ contactId: contactIds[0], amountCents: 1 }] },
      }),
    );
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E2 optimistic lock", () => {
  it("answers STALE_UPDATE with currentUpdatedAt after a concurrent change", async () => {
    const order = await importedOrder(tenant);
    const first = (await (
      await put(order, { status: "A", expectedUpdatedAt: order.updatedAt })
    ).json()) as Order;
    const problem = await expectProblem(
      await put(order, { status: "B", expectedUpdatedAt: order.updatedAt }),
      409,
      "STALE_UPDATE",
    );
    expect(problem.currentUpdatedAt).toBe(first.updatedAt);
    expect(((await (await get(order.id)).json()) as Order).status).toBe("A");
  });

  it("lets exactly one of 20 concurrent updates with one expectedUpdatedAt win", async () => {
    const order = await importedOrder(tenant);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        put(order, { status: `W${i}`, expectedUpdatedAt: order.updatedAt }),
      ),
    );
    const winners: Order[] = [];
    for (const answer of answers) {
      if (answer.status === 200) winners.push((await answer.json()) as Order);
      else await expectProblem(answer, 409, "STALE_UPDATE");
    }
    expect(winners).toHaveLength(1);
    expect(((await (await get(order.id)).json()) as Order).status).toBe(winners[0]?.status);
  });
});

describe("E2 errors", () => {
  it.each([
    ["userMetadata.secondaryContacts[0].amountCents", [{ contactId: 1, amountCents: -1 }]],
    ["userMetadata.secondaryContacts[0].contactId", [{ contactId: "abc", amountCents: 1 }]],
    [
      "userMetadata.secondaryContacts[1].contactId",
      [
        { contactId: 5, amountCents: 1 },
        { contactId: "5", amountCents: 1 },
      ],
    ],
    ["userMetadata.secondaryContacts", "not-an-array"],
  ])("names %s", async (path, secondaryContacts) => {
    const order = await importedOrder(tenant);
    const problem = await expectProblem(
      await put(order, { userMetadata: { secondaryContacts } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("refuses a contact that is not the winery's, and changes nothing", async () => {
    const order = await importedOrder(tenant);
    const other = await createTenant();
    const theirs = (await (
      await api("/v2/contacts", {
        key: other.apiKey,
        body: {
          contactType: "MASTER",
          countryIso: "IT",
          email: "x@example.com",
          firstName: "X",
          lastName: "Y",
          phoneNumber: "1",
        },
      })
    ).json()) as Contact;
    const body = {
      status: "NOPE",
      userMetadata: {
        secondaryContacts: [
          { contactId: contactIds[0], amountCents: 1 },
          { contactId: String(theirs.id), amountCents: 1 },
        ],
      },
    };
    const problem = await expectProblem(await put(order, body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toEqual([
      "userMetadata.secondaryContacts[1].contactId",
    ]);
    expect(await (await get(order.id)).json()).toEqual(order);
  });

  it("refuses amounts that sum past the order's amountCents", async () => {
    const order = await importedOrder(tenant);
    const secondaryContacts = [
      { contactId: contactIds[0], amountCents: order.amountCents },
      { contactId: contactIds[1], amountCents: 1 },
    ];
    const problem = await expectProblem(
      await put(order, { userMetadata: { secondaryContacts } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["userMetadata.secondaryContacts"]);
  });

  it.each([
    ["expectedUpdatedAt", { expectedUpdatedAt: "yesterday" }],
    ["status", { status: 7 }],
    ["userMetadata", { userMetadata: [1, 2] }],
  ])("names the invalid field %s", async (path, body) => {
    const order = await importedOrder(tenant);
    const problem = await expectProblem(await put(order, body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("answers 404 for an unknown order", async () => {
    await expectProblem(await put({ id: 987654321 }, { status: "X" }), 404, "NOT_FOUND");
  });
});

describe("orders security", () => {
  it("answers 401 without a key", async () => {
    const order = await importedOrder(tenant);
    await expectProblem(await api(`/v4/orders/${order.id}`), 401, "UNAUTHENTICATED");
    await expectProblem(
      await api(`/v4/orders/${order.id}`, { method: "PUT", body: {} }),
      401,
      "UNAUTHENTICATED",
    );
  });

  it("answers 404 to winery B for A's order, on read and on update, and changes nothing", async () => {
    const order = await importedOrder(tenant);
    const other = await createTenant();
    await expectProblem(await get(order.id, other.apiKey), 404, "NOT_FOUND");
    await expectProblem(
      await put(order, { status: "HIJACKED", expectedUpdatedAt: order.updatedAt }, other.apiKey),
      404,
      "NOT_FOUND",
    );
    expect(await (await get(order.id)).json()).toEqual(order);
  });
});
