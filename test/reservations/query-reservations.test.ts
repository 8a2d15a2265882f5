import { env, exports } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDatabase,
  type Database,
  type HttpDb,
  SNAPSHOT_IDLE_TIMEOUT_MS,
} from "../../src/db/client";
import { type RawStatement, rawBatch } from "../../src/db/raw-batch";
import { addDays } from "../../src/lib/calendar";
import type { Reservation } from "../../src/schemas/reservation-views";
import {
  queryReservations as queryReservationsOf,
  RESERVATION_BATCH_SIZE,
} from "../../src/services/reservations/query-reservations";
import { expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  importOk,
  insertReservations,
  queryReservations,
  reservationBody,
} from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
let ids: Record<string, string>;

/**
 * The tenant's reservations (no slots: the query does not need them):
 * a 2027-01-10 10:00 CONFIRMED, b 2027-01-10 09:00 draft, c 2027-01-12 12:00 CONFIRMED,
 * d 2027-01-15 08:00 draft (languageIso it).
 */
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  const experience = await createExperience(tenant, {
    titleTranslations: { en: "Tasting", it: "Degustazione", de: "Weinprobe" },
  });
  const rows: [string, string, string, string, string][] = [
    ["a", "2027-01-10", "10:00", "CONFIRMED", "en"],
    ["b", "2027-01-10", "09:00", "draft", "en"],
    ["c", "2027-01-12", "12:00", "CONFIRMED", "en"],
    ["d", "2027-01-15", "08:00", "draft", "it"],
  ];
  ids = {};
  for (const [name, date, time, state, languageIso] of rows) {
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody({ experienceId: experience.id, date, time }, { state, languageIso }),
    );
    ids[name] = reservation.id;
  }
  const theirs = await createExperience(other);
  await importOk(
    other,
    "NEW",
    reservationBody({ experienceId: theirs.id, date: "2027-01-10", time: "10:00" }),
  );
});

async function queryOk(body: Record<string, unknown>, query = "", key = tenant.apiKey) {
  const response = await queryReservations(tenant, body, query, key);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as Reservation[];
}
const names = (list: Reservation[]) =>
  list.map((r) => Object.keys(ids).find((name) => ids[name] === r.id) ?? "?");

describe("E16 POST /v2/reservations/query: happy", () => {
  it("without filters answers all the winery's reservations ordered by date, time, id", async () => {
    const list = await queryOk({});
    expect(names(list)).toEqual(["b", "a", "c", "d"]);
    expect(list[0]).toMatchObject({ wineryId: tenant.wineryId, time: "09:00:00" });
    expect(list[0]?.reservation.id).toBe(ids.b);
    expect(list[0]?.reservationMasterContact?.contactType).toBe("MASTER");
  });

  it.each([
    ["startTime (inclusive)", { startTime: "2027-01-12" }, ["c", "d"]],
    ["endTime (inclusive)", { endTime: "2027-01-12" }, ["b", "a", "c"]],
    [
      "startTime and endTime on one day",
      { startTime: "2027-01-10", endTime: "2027-01-10" },
      ["b", "a"],
    ],
    ["states", { states: ["draft"] }, ["b", "d"]],
    ["states, case-insensitively", { states: ["confirmed"] }, ["a", "c"]],
    ["an empty states list (no filter)", { states: [] }, ["b", "a", "c", "d"]],
    ["ids", { ids: () => [ids.d, ids.a?.toUpperCase()] }, ["a", "d"]],
    ["ids that are not uuids (nothing)", { ids: ["abc"] }, []],
    ["filters combined with AND", { states: ["draft"], endTime: "2027-01-12" }, ["b"]],
    ["the key's own wineryId", { wineryId: () => tenant.wineryId }, ["b", "a", "c", "d"]],
  ])("filters by %s", async (_, filter, expected) => {
    const body = Object.fromEntries(
      Object.entries(filter).map(([k, v]) => [k, typeof v === "function" ? v() : v]),
    );
    expect(names(await queryOk(body))).toEqual(expected);
  });

  it.each([
    ["Lang=it", "?Lang=it", {}, "Degustazione"],
    ["lang=it (the query name in lower case)", "?lang=it", {}, "Degustazione"],
    ["query Lang over query lang", "?Lang=it&lang=de", {}, "Degustazione"],
    ["an empty body lang, as if not sent", "?Lang=it", { lang: "" }, "Degustazione"],
    ["lang in the body", "", { lang: "de" }, "Weinprobe"],
    ["body lang over query Lang", "?Lang=it", { lang: "de" }, "Weinprobe"],
    ["a regional code (it-IT)", "?Lang=it-IT", {}, "Degustazione"],
    ["an unknown language, falling back to English", "?Lang=xx", {}, "Tasting"],
  ])("titles in the requested language: %s", async (_, query, body, title) => {
    const list = await queryOk({ ...body, ids: [ids.a] }, query);
    expect(list.map((r) => r.experienceTitle)).toEqual([title]);
  });

  it.each([
    ["en", "My title"],
    ["it", "Il mio titolo"],
    ["de", "Weinprobe"],
  ])(
    "the reservation's own label in %s comes first, by languageISO or by language",
    async (lang, title) => {
      // Its own tenant: the shared one's four reservations are counted by other tests.
      const own = await createTenant();
      const experience = await createExperience(own, {
        titleTranslations: { en: "Tasting", it: "Degustazione", de: "Weinprobe" },
      });
      const reservation = await importOk(
        own,
        "NEW",
        reservationBody(
          { experienceId: experience.id, date: "2027-02-01", time: "10:00" },
          {
            experienceTitleTranslations: {
              translations: [
                { label: "My title", language: "ENGLISH" },
                { label: "Il mio titolo", languageISO: "IT" },
              ],
            },
          },
        ),
      );
      const list = await queryOk({ lang, ids: [reservation.id] }, "", own.apiKey);
      expect(list.map((r) => r.experienceTitle)).toEqual([title]);
    },
  );

  it("without a language each title follows its reservation's languageIso", async () => {
    const list = await queryOk({ ids: [ids.a, ids.d] });
    expect(list.map((r) => r.experienceTitle)).toEqual(["Tasting", "Degustazione"]);
  });

  it("costs one round trip for an answer that fits one batch", async () => {
    const { result, trips } = await countRoundTrips(() => queryOk({}));
    expect(result).toHaveLength(4);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("costs one round trip for an answer of exactly one batch", async () => {
    const full = await createTenant();
    await insertReservations(full, RESERVATION_BATCH_SIZE);
    const { result, trips } = await countRoundTrips(() => queryOk({}, "", full.apiKey));
    expect(result).toHaveLength(RESERVATION_BATCH_SIZE);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("streams larger answers in keyset batches, in order, from one snapshot (one HTTP round trip and one WebSocket session)", async () => {
    const bulk = await createTenant();
    const count = RESERVATION_BATCH_SIZE * 2 + 3;
    await insertReservations(bulk, count);
    const { result, trips } = await countRoundTrips(() => queryOk({}, "", bulk.apiKey));
    expect(result).toHaveLength(count);
    const keys = result.map((r) => `${r.date} ${r.time} ${r.id}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(result.map((r) => r.id)).size).toBe(count);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 1 });
  });
});

/** The Worker's database handle, as a request has it; `settled` awaits what it left to waitUntil. */
function requestDatabase(): { db: Database; settled: () => Promise<unknown> } {
  const pending: Promise<unknown>[] = [];
  const db = createDatabase(env, (promise) => {
    pending.push(promise);
  });
  return { db, settled: () => Promise.all(pending) };
}

/** Sessions of this database (other than the asking one) inside a transaction. */
async function sessionsInTransaction(): Promise<number> {
  const { rows } = await testDb().execute<{ n: string }>(sql`
    select count(*)::text as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`);
  return Number(rows[0]?.n);
}

async function untilNoSessionInTransaction(): Promise<void> {
  for (let attempt = 0; attempt < 250; attempt++) {
    if ((await sessionsInTransaction()) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("a session stayed inside its transaction");
}

const idOf = (doc: string) => (JSON.parse(doc) as Reservation).id;

describe("E16: one snapshot per answer", () => {
  it("reservations that E11 moves between two batches are answered once each, as they were when the answer began", async () => {
    const own = await createTenant();
    const experience = await createExperience(own);
    const at = (day: number) => ({
      experienceId: experience.id,
      date: addDays("2027-03-31", day),
      time: "10:00",
    });
    // One reservation a day, 2027-04-01 to 09: three batches of 3.
    const before: string[] = [];
    for (let day = 1; day <= 9; day++)
      before.push((await importOk(own, "NEW", reservationBody(at(day)))).id);
    const { db, settled } = requestDatabase();
    const stream = queryReservationsOf(db, { wineryId: own.wineryId }, 3);
    const first = await stream.next();
    if (first.done) throw new Error("no first batch");
    expect(first.value.map(idOf)).toEqual(before.slice(0, 3));
    // Between the first batch and the second, E11 moves one reservation already answered (day 2)
    // past the batches still to come (day 10), and one still to come (day 7) before the first
    // (March 31). Read as batches of their own, the first came twice and the second never.
    for (const [index, day] of [
      [1, 10],
      [6, 0],
    ] as const) {
      const moved = await importOk(own, before[index] ?? "", reservationBody(at(day)));
      expect(moved.date).toBe(at(day).date);
    }
    const answered = first.value.map(idOf);
    for await (const batch of stream) answered.push(...batch.map(idOf));
    expect(answered).toEqual(before);
    await settled();
    await untilNoSessionInTransaction();
    // The moves were committed: a new answer has them in their new places.
    const now = (await queryOk({}, "", own.apiKey)).map((r) => r.id);
    expect(now).toEqual([before[6], ...before.filter((_, i) => i !== 1 && i !== 6), before[1]]);
  });

  it("db.snapshot reads in one repeatable-read, read-only transaction with its own idle bound", async () => {
    const { db, settled } = requestDatabase();
    const settings: Record<string, unknown>[] = [];
    for await (const row of db.snapshot(async function* (query) {
      yield* await query(
        `select current_setting('transaction_isolation') as isolation,
          current_setting('transaction_read_only') as read_only,
          current_setting('idle_in_transaction_session_timeout') as idle`,
        [],
      );
    }))
      settings.push(row);
    expect(settings).toEqual([
      {
        isolation: "repeatable read",
        read_only: "on",
        idle: `${SNAPSHOT_IDLE_TIMEOUT_MS / 1000}s`,
      },
    ]);
    await settled();
    await untilNoSessionInTransaction();
  });

  it("a client that cancels the body closes the snapshot's session", async () => {
    const own = await createTenant();
    await insertReservations(own, RESERVATION_BATCH_SIZE * 3);
    // Not through api(): its schema check reads the whole body, and this client reads one chunk.
    const response = await exports.default.fetch("http://api.test/api/v2/reservations/query", {
      method: "POST",
      headers: { APIKey: own.apiKey, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    expect((await reader.read()).done).toBe(false);
    expect(await sessionsInTransaction()).toBe(1);
    await reader.cancel();
    await untilNoSessionInTransaction();
  });

  it("a stream stopped early (a client that cancels) closes its snapshot's session", async () => {
    const own = await createTenant();
    await insertReservations(own, 10);
    const { db, settled } = requestDatabase();
    const stream = queryReservationsOf(db, { wineryId: own.wineryId }, 3);
    expect((await stream.next()).value).toHaveLength(3);
    expect(await sessionsInTransaction()).toBe(1);
    await stream.return(undefined);
    await settled();
    await untilNoSessionInTransaction();
  });
});

describe("E16: the first statement", () => {
  /** The statement queryReservations sends first for the tenant's 4 reservations, by batches of `batchSize`. */
  async function firstStatement(batchSize: number): Promise<RawStatement> {
    let sent: RawStatement | undefined;
    const recorder = {
      $client: {
        query: async (text: string, parameters: unknown[]) => {
          sent ??= [text, parameters];
          return [];
        },
      },
    } as unknown as HttpDb;
    await queryReservationsOf(
      { http: recorder } as Database,
      { wineryId: tenant.wineryId },
      batchSize,
    ).next();
    if (!sent) throw new Error("queryReservations sent no statement");
    return sent;
  }

  it("builds one document only when more match than a batch holds (they are read again from the snapshot)", async () => {
    const [rows = []] = await rawBatch(testDb(), [await firstStatement(3)]);
    expect(rows.map((row) => row.matched)).toEqual([4]);
    expect(idOf(rows[0]?.doc as string)).toBe(ids.b);
  });

  it("answers every document, in order, when the answer fits one batch", async () => {
    const [rows = []] = await rawBatch(testDb(), [await firstStatement(4)]);
    expect(rows.map((row) => row.matched)).toEqual([4, 4, 4, 4]);
    expect(rows.map((row) => idOf(row.doc as string))).toEqual([ids.b, ids.a, ids.c, ids.d]);
  });
});

/**
 * The plan of the statement queryReservations sends for `filter` (fixed text and its parameters: a
 * filter left out is a null that Postgres folds away when it plans for the values), captured from
 * a handle that only records it, and explained after `settings`.
 */
async function planOf(
  filter: Parameters<typeof queryReservationsOf>[1],
  settings: string[] = [],
): Promise<string> {
  let sent: RawStatement | undefined;
  const recorder = {
    $client: {
      query: async (text: string, parameters: unknown[]) => {
        sent = [text, parameters];
        return [];
      },
    },
  } as unknown as HttpDb;
  await queryReservationsOf({ http: recorder } as Database, filter).next();
  if (!sent) throw new Error("queryReservations sent no statement");
  const [explained = []] = (
    await rawBatch(testDb(), [
      ...settings.map((text): RawStatement => [text, []]),
      [`explain (format text) ${sent[0]}`, sent[1]],
    ])
  ).slice(settings.length);
  return explained.map((row) => Object.values(row).join("")).join("\n");
}

describe("E16: indexes", () => {
  it.each([
    ["no filter", {}],
    [
      "every filter",
      {
        startTime: "2027-01-01",
        endTime: "2027-12-31",
        ids: [crypto.randomUUID()],
        states: ["CONFIRMED"],
      },
    ],
  ])(
    "reads every table of a document through an index, with %s: none is scanned as it grows",
    async (_, filter) => {
      // Tables this small are cheaper to scan; forbid that to see which index the plan would use.
      const text = await planOf({ wineryId: tenant.wineryId, lang: "en", ...filter }, [
        "set local enable_seqscan = off",
      ]);
      // An index scan or a bitmap one, as the table's statistics make cheaper: either reads the index.
      // With every filter the planner may as well start from the ids (the primary key's index).
      expect(text).toMatch(
        Object.keys(filter).length === 0
          ? /Index Scan (using|on) reservations_winery_date_time_idx/
          : /Index Scan (using|on) reservations_\w+/,
      );
      expect(text).not.toMatch(/Seq Scan/);
    },
  );
});

describe("E16: a reservation refunded thousands of times", () => {
  // E14 a cent at a time on one reservation (what a load test does to the demo's) left the
  // planner expecting thousands of ledger rows for every reservation: each document scanned the
  // whole refund ledger twice (E16 8 s at p50 under a mixed soak of npm run dev).
  it("leaves the other documents' plan on the indexes, and its own totals exact", async () => {
    const skewed = await createTenant();
    await insertReservations(skewed, 20);
    const {
      rows: [target],
    } = await testDb().execute<{ id: string }>(
      sql`select id::text as id from reservations where winery_id = ${skewed.wineryId} order by id limit 1`,
    );
    const refunds = 3000;
    await testDb().execute(sql`
      with payment as (
        insert into reservation_payments (winery_id, reservation_id, provider, in_house, amount_cents, refunded_cents)
        values (${skewed.wineryId}, ${target?.id}, 'IN_HOUSE', true, 1000000, ${refunds})
        returning id)
      insert into reservation_refunds (winery_id, reservation_id, payment_id, amount_cents, created_at)
      select ${skewed.wineryId}, ${target?.id}, payment.id, 1,
        timestamptz '2027-03-01 10:00:00+00' + make_interval(secs => g)
      from payment, generate_series(1, ${refunds}) g`);
    await testDb().execute(sql`analyze reservation_refunds`);
    await testDb().execute(sql`analyze reservation_payments`);

    const text = await planOf({ wineryId: skewed.wineryId, lang: "en" });
    expect(text).not.toMatch(/Seq Scan on reservation_refunds/);

    const response = await queryReservations(skewed, { ids: [target?.id] });
    expect(response.status).toBe(200);
    const [doc] = (await response.json()) as Reservation[];
    expect(doc).toMatchObject({
      id: target?.id,
      refundedTotalCents: refunds,
      refundedAt: "2027-03-01T10:50:00.000Z",
    });
  });
});

describe("E16: errors", () => {
  it.each([
    ["endTime before startTime", { startTime: "2027-01-12", endTime: "2027-01-11" }, "endTime"],
    ["a date-time as startTime", { startTime: "2027-01-12T00:00:00Z" }, "startTime"],
    ["ids not an array", { ids: "abc" }, "ids"],
  ])("%s is 400 naming the field", async (_, body, path) => {
    const problem = await expectProblem(
      await queryReservations(tenant, body),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("E16: tenancy", () => {
  it("a winery never sees another's reservations", async () => {
    const theirs = await queryOk({}, "", other.apiKey);
    expect(theirs).toHaveLength(1);
    expect(theirs.every((r) => r.wineryId === other.wineryId)).toBe(true);
    expect(await queryOk({ ids: [theirs[0]?.id] })).toEqual([]);
  });

  it("another winery's wineryId is 403", async () => {
    await expectProblem(
      await queryReservations(tenant, { wineryId: other.wineryId }),
      403,
      "FORBIDDEN",
    );
  });
});
