/**
 * `npm run bench -- --soak`: the stack, two wineries (one for E13's writes, one of fixed size for
 * E17), then runSoak against the chosen Worker, and the result on the terminal and in
 * bench/results/. `--target workerd` (the default) loads the bundled Worker alone in workerd;
 * `--target dev` loads `wrangler dev` as `npm run dev` runs it (its proxy workerd in front).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gitState, log } from "./common";
import { findInspectorUrl, type HeapProbe, openHeapProbe } from "./inspector";
import { analyzeContacts, createTenant, insertContacts, openBenchDb } from "./seed";
import { runSoak, type SoakOptions, soakTargets } from "./soak";
import { type SoakRecord, writeSoakResult } from "./soak-report";
import { type Stack, startStack } from "./stack";
import { type PlainWorkerd, startPlainWorkerd } from "./workerd";

export type SoakTarget = "workerd" | "dev";

export interface SoakCliOptions extends SoakOptions {
  target: SoakTarget;
  exportContacts: number;
  /** Sample the isolate's V8 heap through its inspector (attaching one changes what is measured). */
  heap: boolean;
  resultsDir: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** The bundled Worker in its own workerd, on the stack's database and Neon endpoints. */
async function plainWorkerd(s: Stack, outDir: string, inspector: boolean): Promise<PlainWorkerd> {
  if (!s.neonEndpoints) throw new Error("dev.ts did not print its Neon endpoints");
  return startPlainWorkerd({
    appDir: s.appDir,
    outDir,
    port: await freePort(),
    bindings: {
      DATABASE_URL: s.workerDatabaseUrl,
      NEON_HTTP_ENDPOINT: s.neonEndpoints.http,
      NEON_WS_PROXY: s.neonEndpoints.wsProxy,
    },
    compatibilityDate: "2026-10-01",
    compatibilityFlags: ["nodejs_compat"],
    inspector,
  });
}

async function probe(pid: number, port: number, enabled: boolean): Promise<HeapProbe | undefined> {
  if (!enabled) return undefined;
  const url = await findInspectorUrl(pid, port);
  if (!url) {
    log("V8 heap: no inspector found; not sampled");
    return undefined;
  }
  return openHeapProbe(url);
}

/** Runs the soak; true when it passed. The stack is stopped before it returns. */
export async function runSoakBench(o: SoakCliOptions): Promise<boolean> {
  const loadBefore = loadavg();
  log(
    `soak: ${o.target}, E13 x${o.e13Connections} + E17 x${o.e17Connections} for ${o.seconds} s; load average ${loadBefore[0]?.toFixed(2)} on ${cpus().length} CPUs`,
  );
  const s = await startStack(log);
  const outDir = await mkdtemp(join(tmpdir(), "winery-soak-"));
  let worker: PlainWorkerd | undefined;
  let heapProbe: HeapProbe | undefined;
  try {
    const bench = openBenchDb(s.connectionString);
    let e13Key: string;
    let e17Key: string;
    try {
      e13Key = (await createTenant(bench.db, "Soak E13")).apiKey;
      const e17 = await createTenant(bench.db, "Soak E17");
      e17Key = e17.apiKey;
      await insertContacts(bench.db, e17.wineryId, o.exportContacts, new Date("2025-06-15T12:00Z"));
      await analyzeContacts(bench.db);
    } finally {
      await bench.close();
    }
    let apiUrl = s.apiUrl;
    if (o.target === "workerd") {
      worker = await plainWorkerd(s, outDir, o.heap);
      apiUrl = worker.apiUrl;
      log(`bundled Worker in workerd pid ${worker.pid} at ${apiUrl}`);
    }
    heapProbe = worker
      ? await probe(worker.pid, worker.port, o.heap)
      : await probe(s.proxyPid() ?? 0, s.port, o.heap);
    const range = { dateFrom: "2025-01-01T00:00:00Z", dateTo: "2026-01-01T00:00:00Z" };
    const result = await runSoak(
      s,
      soakTargets(apiUrl, e13Key, e17Key, range),
      o,
      log,
      heapProbe,
      worker?.pid,
    );
    const record: SoakRecord = {
      at: new Date().toISOString(),
      target: o.target,
      database: s.database,
      git: gitState(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: { before: loadBefore, after: loadavg() },
      exportContacts: o.exportContacts,
      ...result,
    };
    await writeSoakResult(record, o.resultsDir);
    return result.failures.length === 0;
  } finally {
    heapProbe?.close();
    await worker?.stop();
    await s.stop();
    await rm(outDir, { recursive: true, force: true });
  }
}
