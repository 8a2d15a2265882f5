import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { catalogue } from "./matrix-catalogue";
import { commerce } from "./matrix-commerce";
import type { MatrixEntry } from "./matrix-entry";
import { experiences } from "./matrix-experiences";
import { ordersAndContacts } from "./matrix-orders-contacts";
import { reservations } from "./matrix-reservations";

/**
 * The tenancy matrix: for every operation of the document, winery B's key aimed at winery A's
 * data. Other wineries' ids are 404, their wineryId is 403, and lists, exports and upserts answer
 * on B's own data only; A's data reads the same before and after. A new route fails the coverage
 * test below until it has its rows here.
 */
const matrix: MatrixEntry[] = [
  ...ordersAndContacts,
  ...commerce,
  ...catalogue,
  ...experiences,
  ...reservations,
];

interface Operation {
  key: string;
  path: string;
  parameters?: { name: string; in: string; schema?: { format?: string } }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
  allOf?: Schema[];
}

const doc = (await (await api("/openapi.json")).json()) as {
  paths: Record<string, Record<string, Omit<Operation, "key" | "path">>>;
  components: { schemas: Record<string, Schema> };
};
const operations: Operation[] = Object.entries(doc.paths)
  .flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      ...op,
      key: `${method.toUpperCase()} ${path}`,
      path,
    })),
  )
  .filter((op) => /^\/api\/v[234]\//.test(op.path));

/** The top-level properties of a body schema, through $ref and allOf. */
function bodyPropertySchemas(schema: Schema | undefined): [string, unknown][] {
  if (!schema) return [];
  if (schema.$ref)
    return bodyPropertySchemas(doc.components.schemas[schema.$ref.split("/").pop() ?? ""]);
  return [
    ...Object.entries(schema.properties ?? {}),
    ...(schema.allOf ?? []).flatMap(bodyPropertySchemas),
  ];
}
const bodyProperties = (schema: Schema | undefined) =>
  bodyPropertySchemas(schema).map(([name]) => name);

/** Why an operation must be in the matrix, and which answer its rows must include. */
function requirements(op: Operation): { why: string; status?: number }[] {
  const pathParams = (op.parameters ?? []).filter((p) => p.in === "path");
  const takesWineryId =
    (op.parameters ?? []).some((p) => p.name === "wineryId") ||
    bodyProperties(op.requestBody?.content?.["application/json"]?.schema).includes("wineryId");
  return [
    // Every operation reads or writes a winery's data: lists and exports can leak as much as ids.
    { why: "reads or writes winery data" },
    ...(takesWineryId ? [{ why: "takes a wineryId", status: 403 }] : []),
    ...pathParams
      .filter((p) => p.name !== "wineryId")
      .map((p) => ({ why: `takes the id {${p.name}}` })),
  ];
}

let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  [a, b] = await Promise.all([createTenant(), createTenant()]);
});

describe("tenancy matrix: coverage of the document", () => {
  it("has rows for every operation, and a 403 row for each that takes a wineryId", () => {
    const missing = operations.flatMap((op) => {
      const rows = matrix.filter((e) => e.operation === op.key);
      return requirements(op)
        .filter((r) => (r.status ? !rows.some((e) => e.expected === r.status) : rows.length === 0))
        .map(
          (r) => `${op.key}: ${r.why}, but the matrix has no${r.status ? ` ${r.status}` : ""} row`,
        );
    });
    expect(missing).toEqual([]);
  });

  it("names only operations of the document", () => {
    const known = new Set(operations.map((op) => op.key));
    expect(matrix.map((e) => e.operation).filter((o) => !known.has(o))).toEqual([]);
  });
});

describe("tenancy matrix: winery B's key on winery A's data", () => {
  it.each(matrix.map((e) => [`${e.operation}: ${e.case}`, e] as const))("%s", async (_, entry) => {
    const { ids, marks = [] } = await entry.arrangeA(a);
    const before = await entry.readAsA?.(ids, a);
    const attempt = await entry.requestAsB(ids, b);
    const response = await api(attempt.path, {
      key: b.apiKey,
      ...(attempt.method && { method: attempt.method }),
      ...(attempt.body !== undefined && { body: attempt.body }),
      ...(attempt.headers && { headers: attempt.headers }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(entry.expected);
    const code = { 400: "VALIDATION_ERROR", 403: "FORBIDDEN", 404: "NOT_FOUND" }[
      entry.expected as 400
    ];
    if (code) expect(JSON.parse(text).code).toBe(code);
    // A mark B itself sent (an id in its path or body) may be echoed back; any other may not.
    const sent = `${attempt.path} ${JSON.stringify(attempt.body ?? null)}`;
    for (const mark of marks.filter((m) => !sent.includes(m)))
      expect(text, `B's answer shows A's ${mark}`).not.toContain(mark);
    entry.checkAnswer?.(JSON.parse(text), ids, b);
    if (entry.readAsA) expect(await entry.readAsA(ids, a)).toEqual(before);
  });
});

describe("a foreign wineryId anywhere a request can carry one", () => {
  /** A value for each path parameter: the guard and the 403 come before the parameters' schemas. */
  const filled = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === "wineryId" ? b.wineryId : name === "apiChannelKey" ? b.apiChannelKey : "1",
    );

  it.each(operations.map((op) => [op.key, op] as const))(
    "%s: 403 for winery A's id in the query, and in a JSON body",
    async (key, op) => {
      const method = key.split(" ")[0] as string;
      const path = `${filled(op.path).replace(/^\/api/, "")}`;
      const inQuery = await api(`${path}?wineryId=${a.wineryId}`, {
        method,
        key: b.apiKey,
        ...(op.requestBody && { body: {} }),
      });
      expect(inQuery.status, await inQuery.clone().text()).toBe(403);
      expect(((await inQuery.json()) as { code: string }).code).toBe("FORBIDDEN");
      // A wineryId that names no winery is not the key's either.
      const unknown = await api(`${path}?wineryId=not-my-winery`, {
        method,
        key: b.apiKey,
        ...(op.requestBody && { body: {} }),
      });
      expect(unknown.status, await unknown.clone().text()).toBe(403);
      if (!op.requestBody) return;
      // Whether or not the operation's schema has a wineryId (E13, E17 and E18 have none), at the
      // top, nested (an experience's integrations carry one each) or behind a \u escape; the
      // problem names where.
      for (const [body, where] of [
        [{ wineryId: a.wineryId }, "wineryId"],
        [{ wineryId: a.wineryId.toUpperCase() }, "wineryId"],
        [
          { experienceIntegrations: [{}, { wineryId: a.wineryId }] },
          "experienceIntegrations[1].wineryId",
        ],
      ] as const) {
        const inBody = await api(path, { method, key: b.apiKey, body });
        const problem = (await inBody.clone().json()) as { errors?: { path: string }[] };
        expect(inBody.status, await inBody.clone().text()).toBe(403);
        expect(problem.errors?.map((e) => e.path)).toEqual([where]);
      }
      // A string that is not a uuid names no winery: where the operation types wineryId a uuid it
      // is 400 naming it (types are enforced), where a string (E16's filter) 403, and where it has
      // none it is an unknown field, ignored.
      const declared = bodyPropertySchemas(
        op.requestBody.content?.["application/json"]?.schema,
      ).find(([name]) => name === "wineryId")?.[1];
      // Path parameters that pass their schemas, so that the body's is the one that answers.
      const uuids = new Set(
        op.parameters?.filter((p) => p.schema?.format === "uuid").map((p) => p.name),
      );
      const passing = op.path.replace(/^\/api/, "").replace(/\{(\w+)\}/g, (whole, name: string) => {
        if (name === "reservationID") return "NEW"; // E11's pattern; E14 takes any string
        return uuids.has(name) && name !== "wineryId" ? crypto.randomUUID() : filled(whole);
      });
      for (const text of ["", "not-my-winery"]) {
        const notUuid = await api(passing, { method, key: b.apiKey, body: { wineryId: text } });
        const answer = await notUuid.clone().text();
        const paths = (JSON.parse(answer) as { errors?: { path: string }[] }).errors?.map(
          (e) => e.path,
        );
        if (declared === undefined) expect(notUuid.status, answer).not.toBe(403);
        else if (JSON.stringify(declared).includes('"format":"uuid"')) {
          expect(notUuid.status, answer).toBe(400);
          expect(paths, answer).toContain("wineryId");
        } else {
          expect(notUuid.status, answer).toBe(403);
          expect(paths, answer).toEqual(["wineryId"]);
        }
      }
      const escaped = await api(path, {
        method,
        key: b.apiKey,
        rawBody: `{"winery\\u0049d":"${a.wineryId}"}`,
        headers: { "Content-Type": "application/json" },
      });
      expect(escaped.status, await escaped.clone().text()).toBe(403);
    },
  );
});
