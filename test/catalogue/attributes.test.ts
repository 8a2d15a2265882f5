import { beforeAll, describe, expect, it } from "vitest";
import type { Attribute, CreationResponse } from "../../src/schemas/attributes";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const upsert = (t: TestTenant, body: unknown) =>
  api("/v2/product-catalog/attributes", { key: t.apiKey, body });
const toggle = (t: TestTenant, id: string | number, body: unknown = {}) =>
  api(`/v2/product-catalog/attributes/${id}/toggle-visibility`, { key: t.apiKey, body });
const code = () => `grape-${crypto.randomUUID().slice(0, 8)}`;

async function created(t: TestTenant, body: Record<string, unknown> = {}) {
  const response = await upsert(t, {
    code: code(),
    names: { it: "Vitigno", en: "Grape" },
    ...body,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as CreationResponse;
}

describe("E6 POST /v2/product-catalog/attributes", () => {
  it("creates, then updates by code and by id", async () => {
    const c = code();
    const first = await created(tenant, { code: c, displayOrder: 3, applicableToTypes: ["WINE"] });
    expect(first).toEqual({
      id: expect.stringMatching(/^\d+$/),
      message: "Attribute created.",
      status: "CREATED",
    });
    const byCode = await created(tenant, { code: c, names: { it: "Uva" } });
    expect(byCode).toMatchObject({ id: first.id, status: "UPDATED" });
    const byIdResponse = await upsert(tenant, {
      attributeId: Number(first.id),
      code: `${c}-renamed`,
    });
    const byId = (await byIdResponse.json()) as CreationResponse;
    expect(byId).toMatchObject({ id: first.id, status: "UPDATED" });
    // Read it back through E15 (setting, not flipping): the updates landed, untouched fields kept.
    const attribute = (await (
      await toggle(tenant, first.id, { isVisible: true })
    ).json()) as Attribute;
    expect(attribute).toMatchObject({
      code: `${c}-renamed`,
      names: { it: "Uva" },
      displayOrder: 3,
      applicableToTypes: ["WINE"],
      valueType: "TEXT",
    });
  });

  it("converges concurrent upserts of one code on one attribute, in one round trip each", async () => {
    const c = code();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => created(tenant, { code: c })),
    );
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);
    expect(answers.filter((a) => a.status === "CREATED")).toHaveLength(1);
    const { trips } = await countRoundTrips(() => upsert(tenant, { code: c }));
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("updates by id without a code, keeping the stored code and every field left out", async () => {
    const c = code();
    const first = await created(tenant, { code: c, displayOrder: 7, valueType: "NUMBER" });
    const response = await upsert(tenant, { attributeId: Number(first.id), names: { en: "Vine" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: first.id, status: "UPDATED" });
    const attribute = (await (
      await toggle(tenant, first.id, { isVisible: true })
    ).json()) as Attribute;
    expect(attribute).toMatchObject({
      code: c,
      names: { en: "Vine" },
      displayOrder: 7,
      valueType: "NUMBER",
    });
    // Without a code, an id that is not the winery's is still 404, not a 400 about the code.
    await expectProblem(
      await upsert(tenant, { attributeId: 9_007_199_254_740, names: {} }),
      404,
      "NOT_FOUND",
    );
  });

  it("treats every null field exactly as one left out", async () => {
    const unset = {
      attributeId: null,
      displayOrder: null,
      isVisible: null,
      names: null,
      applicableToTypes: null,
      valueType: null,
    };
    const c = code();
    // Creates as `{ code }` alone does: every field takes its default.
    const response = await upsert(tenant, { ...unset, code: c });
    expect(response.status).toBe(200);
    const first = (await response.json()) as CreationResponse;
    expect(first.status).toBe("CREATED");
    // An E15 flip without a value answers the attribute: isVisible was true.
    expect(await (await toggle(tenant, first.id)).json()).toMatchObject({
      code: c,
      names: {},
      applicableToTypes: [],
      displayOrder: 0,
      isVisible: false,
      valueType: "TEXT",
    });
    // Updates by code and by id keep the stored values of the null fields, code included.
    await upsert(tenant, { code: c, names: { it: "Uva" }, displayOrder: 5, valueType: "NUMBER" });
    const byCode = await upsert(tenant, { ...unset, code: c });
    expect(await byCode.json()).toMatchObject({ id: first.id, status: "UPDATED" });
    const byId = await upsert(tenant, { ...unset, attributeId: Number(first.id), code: null });
    expect(await byId.json()).toMatchObject({ id: first.id, status: "UPDATED" });
    expect(await (await toggle(tenant, first.id)).json()).toMatchObject({
      code: c,
      names: { it: "Uva" },
      displayOrder: 5,
      isVisible: true,
      valueType: "NUMBER",
    });
  });

  it("stores a __proto__ language key as sent, and validates its value like any other", async () => {
    const names = JSON.parse('{"__proto__":"Proto","en":"Grape"}');
    const { id } = await created(tenant, { names });
    const attribute = (await (await toggle(tenant, id, { isVisible: true })).json()) as Attribute;
    expect(Object.entries(attribute.names)).toEqual(
      expect.arrayContaining([
        ["__proto__", "Proto"],
        ["en", "Grape"],
      ]),
    );
    expect(Object.getPrototypeOf(attribute.names)).toBe(Object.prototype);
    const problem = await expectProblem(
      await upsert(tenant, { code: code(), names: JSON.parse('{"__proto__":3,"en":"Grape"}') }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["names.__proto__"]);
  });

  it.each([
    ["code", {}],
    ["code", { names: { it: 3 } }],
    ["code", { code: "" }],
    ["code", { code: null, displayOrder: 1 }],
    ["code", { attributeId: null, code: null }],
    ["isVisible", { code: "x", attributeId: null, isVisible: "yes" }],
    ["names", { code: "x", names: "Uva" }],
    ["attributeId", { code: "x", attributeId: 1.5 }],
    ["displayOrder", { code: "x", displayOrder: 2 ** 31 }],
    ["names.it", { code: "x", names: { it: 3 } }],
  ])("names the invalid field %s", async (path, body) => {
    const problem = await expectProblem(await upsert(tenant, body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("renaming onto a code another attribute has is 409", async () => {
    const a = await created(tenant);
    const c = code();
    await created(tenant, { code: c });
    await expectProblem(
      await upsert(tenant, { attributeId: Number(a.id), code: c }),
      409,
      "CONFLICT",
    );
  });

  it("another winery's attribute id is 404; its code is another attribute", async () => {
    const c = code();
    const theirs = await created(other, { code: c });
    await expectProblem(
      await upsert(tenant, { attributeId: Number(theirs.id), code: c }),
      404,
      "NOT_FOUND",
    );
    const mine = await created(tenant, { code: c });
    expect(mine.status).toBe("CREATED");
    expect(mine.id).not.toBe(theirs.id);
  });
});

describe("E15 POST /v2/product-catalog/attributes/{id}/toggle-visibility", () => {
  it("flips without a value and sets with one", async () => {
    const { id } = await created(tenant);
    const flipped = (await (await toggle(tenant, id)).json()) as Attribute;
    expect(flipped).toMatchObject({ id: Number(id), isVisible: false });
    expect(((await (await toggle(tenant, id)).json()) as Attribute).isVisible).toBe(true);
    // null is left out, as in every catalogue route: a flip.
    const nulled = await toggle(tenant, id, { isVisible: null });
    expect(((await nulled.json()) as Attribute).isVisible).toBe(false);
    for (let i = 0; i < 2; i++) {
      expect(
        ((await (await toggle(tenant, id, { isVisible: false })).json()) as Attribute).isVisible,
      ).toBe(false);
    }
  });

  it("N concurrent toggles flip it N times (atomic, one round trip each)", async () => {
    const { id } = await created(tenant);
    const answers = await Promise.all(Array.from({ length: 21 }, () => toggle(tenant, id)));
    const states = await Promise.all(
      answers.map(async (a) => ((await a.json()) as Attribute).isVisible),
    );
    // Each toggle saw the previous one's result: 11 answers false, 10 true, and 21 flips of true.
    expect(states.filter((v) => !v)).toHaveLength(11);
    const { result, trips } = await countRoundTrips(() => toggle(tenant, id, { isVisible: true }));
    expect(((await result.json()) as Attribute).isVisible).toBe(true);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("is 404 for another winery's attribute (unchanged) and an unknown one, 400 for a bad id", async () => {
    const theirs = await created(other);
    await expectProblem(await toggle(tenant, theirs.id), 404, "NOT_FOUND");
    const after = (await (await toggle(other, theirs.id, { isVisible: true })).json()) as Attribute;
    expect(after.isVisible).toBe(true);
    await expectProblem(await toggle(tenant, 9_007_199_254_740), 404, "NOT_FOUND");
    await expectProblem(await toggle(tenant, "abc"), 400, "VALIDATION_ERROR");
    await expectProblem(
      await toggle(tenant, theirs.id, { isVisible: "no" }),
      400,
      "VALIDATION_ERROR",
    );
  });
});
