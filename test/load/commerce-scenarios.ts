import { and, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { couponUses } from "../../src/db/schema";
import type { CommerceSession } from "../../src/schemas/commerce-sessions";
import type { Coupon, CouponUtilizationResult } from "../../src/schemas/coupons";
import { testDb } from "../helpers/db";
import type { TestTenant } from "../helpers/factories";
import { type Burst, call, type Random, type Scenario, type Task, unexpected } from "./workload";

/**
 * E3 replaces with version: `writers` clients per session each read the session and replace it
 * with its items plus their own (a read-modify-write guarded by `version`), retrying STALE_UPDATE a
 * bounded number of times. Afterwards: the version is 1 + the successful replaces, each success got
 * its own version, the stored items are exactly the successful writers' (none lost, none twice),
 * and each success saw every item written before it (its answer is a prefix of the final items).
 */
export function sessionScenario(random: Random, count: number, writers: number): Scenario {
  const ids: string[] = [];
  const won = new Map<string, Map<number, string[]>>();
  const path = (id: string) => `/v2/commerce/sessions/${id}`;
  const names = (session: CommerceSession) => session.items.map((i) => i.name ?? "");
  const replace = async (t: TestTenant, id: string, mine: string[]) => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const read = await call(path(id), { key: t.apiKey });
      if (read.status !== 200) throw unexpected("GET session", read);
      const session = read.body as CommerceSession;
      const items = [...names(session), ...mine].map((name) => ({
        name,
        qty: 1,
        unitPriceCents: 500,
      }));
      const answer = await call(path(id), {
        key: t.apiKey,
        method: "PUT",
        body: { version: session.version, status: "OPEN", items },
      });
      if (answer.status === 200) {
        const written = answer.body as CommerceSession;
        const versions = won.get(id);
        expect(versions?.has(written.version), `version ${written.version} given twice`).toBe(
          false,
        );
        versions?.set(written.version, names(written));
        return;
      }
      if (answer.status !== 409 || answer.body.code !== "STALE_UPDATE")
        throw unexpected("E3", answer);
    }
  };
  return {
    name: "E3 session replaces with version",
    arrange: async (t) => {
      for (let i = 0; i < count; i++) {
        const id = crypto.randomUUID();
        const answer = await call(path(id), {
          key: t.apiKey,
          method: "PUT",
          body: { status: "OPEN", items: [] },
        });
        if (answer.status !== 200) throw unexpected("E3 create", answer);
        ids.push(id);
        won.set(id, new Map());
      }
    },
    tasks: (t) =>
      ids.map((id) =>
        Array.from({ length: writers }, (_, w): Task => {
          const mine = Array.from({ length: random.int(1, 3) }, (_, i) => `w${w}-${i}`);
          return () => replace(t, id, mine);
        }),
      ),
    verify: async (t) => {
      for (const id of ids) {
        const { rows } = await testDb().execute<{ version: number; names: string[] | null }>(sql`
          select s.version, (select array_agg(i.name order by i.position) from commerce_session_items i
                             where i.winery_id = s.winery_id and i.session_id = s.id) as names
          from commerce_sessions s where s.winery_id = ${t.wineryId} and s.id = ${id}`);
        const versions = won.get(id) ?? new Map<number, string[]>();
        const final = rows[0]?.names ?? [];
        expect(versions.size).toBeGreaterThan(0);
        expect(rows[0]?.version).toBe(1 + versions.size);
        expect([...versions.keys()].sort((x, y) => x - y)).toEqual(
          Array.from({ length: versions.size }, (_, i) => i + 2),
        );
        // Writer w's items are named w<w>-<i>: the writers whose items are stored are the winners.
        const writersStored = new Set(final.map((name) => name.split("-")[0]));
        expect(writersStored.size).toBe(versions.size);
        expect(new Set(final).size).toBe(final.length);
        expect(final).toEqual(versions.get(1 + versions.size));
        for (const seen of versions.values()) expect(final.slice(0, seen.length)).toEqual(seen);
      }
    },
  };
}

/**
 * E5 under load: validations of a coupon with room left and of one at its useMax. Validation never
 * consumes a use (nothing on this branch consumes one: coupon_uses is written only by the seed and
 * by reservations once they land), so the answers are all the same and useCount stays as recorded.
 */
export function couponScenario(validations: number): Scenario {
  const codes = {
    open: `LOAD${crypto.randomUUID().slice(0, 8)}`,
    full: `FULL${crypto.randomUUID().slice(0, 8)}`,
  };
  const couponIds: string[] = [];
  const answers: { code: string; result: CouponUtilizationResult }[] = [];
  return {
    name: "E5 coupon validations",
    arrange: async (t) => {
      for (const code of [codes.open, codes.full]) {
        const answer = await call(`/v2/coupons/${code}`, {
          key: t.apiKey,
          method: "PUT",
          body: {
            discountType: "percent",
            discountPercent: 10,
            type: "RESERVATION",
            useMax: code === codes.open ? 5 : 3,
          },
        });
        if (answer.status !== 200) throw unexpected("coupon", answer);
        const coupon = answer.body as Coupon;
        couponIds.push(coupon.id);
        await testDb()
          .insert(couponUses)
          .values(
            Array.from({ length: 3 }, (_, i) => ({
              wineryId: t.wineryId,
              couponId: coupon.id,
              email: `u${i}@example.com`,
            })),
          );
      }
    },
    tasks: (t) =>
      Array.from(
        { length: validations },
        (_, i): Burst => [
          async () => {
            const code = i % 2 === 0 ? codes.open : codes.full;
            const answer = await call("/v2/coupons/validate", {
              key: t.apiKey,
              body: {
                code,
                purchaseType: "RESERVATION",
                email: `v${i}@example.com`,
                totalAmountCentsBeforeDiscount: 10_000,
              },
            });
            if (answer.status !== 200) throw unexpected("E5", answer);
            answers.push({ code, result: answer.body as CouponUtilizationResult });
          },
        ],
      ),
    verify: async (t) => {
      for (const { code, result } of answers) {
        if (code === codes.open)
          expect(result).toMatchObject({ success: true, coupon: { useCount: 3 } });
        else expect(result.message).toMatch(/^USE_MAX_REACHED/);
      }
      for (const couponId of couponIds) {
        const uses = await testDb()
          .select({ n: sql<number>`count(*)::int` })
          .from(couponUses)
          .where(and(eq(couponUses.wineryId, t.wineryId), eq(couponUses.couponId, couponId)));
        expect(uses[0]?.n).toBe(3);
      }
    },
  };
}
