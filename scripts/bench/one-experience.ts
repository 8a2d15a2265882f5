/**
 * Latency on ONE busy experience, against a running API (`npm run dev`, or any deployment):
 * CLIENTS concurrent loops (default 50) for DURATION_S seconds (default 60) on one new experience
 * with 20 slots, each call one of: E9 UPDATE of a slot (newMaxParties or newOccupantsCount), E9
 * dry-run DELETE, E11 import (a new reservation, or one of the loop's own moved to another slot),
 * PUT experience (maxParties, propagated to the slots), GET availabilities. The writes lock the
 * experience or its slots, so they come in turn: what this measures is how long each holds them. Prints, per kind of call, the statuses and the latency (p50, p99, max, how many
 * over 2 s and over 10 s).
 * Run: `BASE_URL=http://127.0.0.1:8787 API_KEY=<seed's apiKey> npx tsx scripts/bench/one-experience.ts`.
 * Session 20, `npm run dev` on 2 CPUs, 50 clients, 60 s: with E9 beyond plain creates and saves
 * with slotsRequests as interactive transactions (fd20368) 1,446 calls, E9 UPDATE p50 2.5 s / p99
 * 6.3 s, PUT experience p50 3.4 s / p99 7.6 s, E11 p50 1.5 s; with them as a read and one batch and
 * E9 on one slot as one statement (6ca8df3) 6,586 calls, E9 UPDATE p50 0.42 s / p99 1.6 s, PUT
 * experience p50 0.44 s / p99 0.95 s, E11 p50 0.46 s / p99 0.97 s.
 */
const base = process.env.BASE_URL ?? "http://127.0.0.1:8787";
const apiKey = process.env.API_KEY;
const clients = Number(process.env.CLIENTS ?? 50);
const seconds = Number(process.env.DURATION_S ?? 60);
if (!apiKey) throw new Error("API_KEY is required (npm run seed prints one as apiKey)");

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { APIKey: apiKey, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
};

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

const experienceId = crypto.randomUUID();
const experience = (maxParties: number) => ({
  active: true,
  maxParties,
  minPartiesToEnable: 1,
  languagesIsoCode: ["en", "it"],
  titleTranslations: { en: "Busy tasting" },
});
const saved = await call("PUT", `/v2/experiences/${experienceId}`, experience(40));
if (saved.status !== 200) throw new Error(`PUT experience: ${saved.status} ${saved.body}`);
const created = await call("POST", "/v2/availabilities/actions", {
  requests: [
    { action: "CREATE", experienceId, startFromValid: day(1), endToValid: day(20), time: "10:00" },
  ],
});
if (created.status !== 200) throw new Error(`E9 CREATE: ${created.status} ${created.body}`);
const slots = (
  JSON.parse(created.body) as { slotActions: { created: { id: string; date: string }[] } }[]
)[0]?.slotActions.created;
if (!slots?.length) throw new Error("no slots created");

type Kind = "E9 UPDATE" | "E9 dryRun" | "E11" | "PUT experience" | "GET availabilities";
const samples = new Map<Kind, { ms: number; status: number }[]>();
const KINDS: [Kind, number][] = [
  ["E9 UPDATE", 0.35],
  ["E9 dryRun", 0.1],
  ["E11", 0.3],
  ["PUT experience", 0.15],
  ["GET availabilities", 0.1],
];
const kind = (): Kind => {
  let r = Math.random();
  for (const [name, share] of KINDS) {
    r -= share;
    if (r < 0) return name;
  }
  return "GET availabilities";
};

async function once(own: string[]): Promise<[Kind, number]> {
  const k = kind();
  const slot = pick(slots ?? []);
  switch (k) {
    case "E9 UPDATE": {
      const change =
        Math.random() < 0.5
          ? { newMaxParties: 30 + Math.floor(Math.random() * 10) }
          : { newOccupantsCount: Math.floor(Math.random() * 3) };
      return [
        k,
        (
          await call("POST", "/v2/availabilities/actions", {
            requests: [{ action: "UPDATE", slotId: slot.id, ...change }],
          })
        ).status,
      ];
    }
    case "E9 dryRun":
      return [
        k,
        (
          await call("POST", "/v2/availabilities/actions", {
            requests: [{ action: "DELETE", slotId: slot.id, dryRun: true }],
          })
        ).status,
      ];
    case "E11": {
      const id = own.length > 0 && Math.random() < 0.5 ? pick(own) : crypto.randomUUID();
      const answer = await call("PUT", `/v2/reservations/import/${id}`, {
        experienceId,
        date: slot.date,
        time: "10:00",
        state: "CONFIRMED",
        guestCount01: 1,
        guestCountTotal: 1,
        languageIso: "en",
        reservationContacts: [
          {
            contactType: "MASTER",
            email: `busy-${id.slice(0, 8)}@example.com`,
            firstName: "Ada",
            lastName: "Busy",
            countryIso: "IT",
            phoneNumber: "+39 055 123 4567",
          },
        ],
      });
      if (answer.status === 200 && !own.includes(id)) own.push(id);
      return [k, answer.status];
    }
    case "PUT experience":
      return [
        k,
        (
          await call(
            "PUT",
            `/v2/experiences/${experienceId}`,
            experience(40 + Math.floor(Math.random() * 3)),
          )
        ).status,
      ];
    default:
      return [
        k,
        (
          await call(
            "GET",
            `/v2/availabilities?experienceId=${experienceId}&from=${day(1)}&to=${day(20)}`,
          )
        ).status,
      ];
  }
}

const until = Date.now() + seconds * 1000;
async function loop(): Promise<void> {
  const own: string[] = [];
  while (Date.now() < until) {
    const started = performance.now();
    let result: [Kind, number];
    try {
      result = await once(own);
    } catch {
      result = ["GET availabilities", 0];
    }
    const [k, status] = result;
    const list = samples.get(k) ?? [];
    list.push({ ms: performance.now() - started, status });
    samples.set(k, list);
  }
}

console.log(
  `[one-experience] ${clients} clients for ${seconds} s on ${base}, experience ${experienceId}`,
);
await Promise.all(Array.from({ length: clients }, loop));
for (const [k] of KINDS) {
  const list = samples.get(k) ?? [];
  const ms = list.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] ?? 0);
  const statuses = new Map<number, number>();
  for (const s of list) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  console.log(
    `${k.padEnd(18)} ${String(list.length).padStart(5)} calls  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${Math.round(ms.at(-1) ?? 0)} ms  >2s ${ms.filter((m) => m > 2000).length}  >10s ${ms.filter((m) => m > 10_000).length}  statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
}

export {};
