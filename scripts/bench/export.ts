/**
 * One E17 export (POST /api/v3/contacts/query), read to the end while the workerd processes'
 * memory is sampled, then checked: a JSON array of exactly the expected contacts, ordered by id.
 */
import type { HeapProbe, HeapUsage } from "./inspector";
import { round } from "./load";
import { type MemoryPeak, sampleMemory, type WorkerdProcess } from "./proc";

export interface ExportRun {
  label: string;
  contacts: number;
  status: number;
  bytes: number;
  /** Until the response headers (the handler reads the first batch before answering). */
  headersMs: number;
  /** Until the first body bytes. */
  ttfbMs: number;
  totalMs: number;
  mbPerSecond: number;
  /** Elements in the parsed array (complete documents of a cut body), ids in ascending order. */
  parsedCount: number;
  ordered: boolean;
  /** A whole JSON array with the expected number of contacts, ordered by id. */
  ok: boolean;
  /** What went wrong, when not ok (e.g. the body was cut before its closing `]`). */
  problem?: string;
  memory: (MemoryPeak & { deltaKiB: number })[];
  /** The app isolate's V8 heap (inspector), when it could be reached. */
  heap?: HeapPeak;
  samples: number;
  maxSampleGapMs: number;
}

export interface HeapPeak {
  /** Live JS heap before the request, and its highest value during it. */
  baselineUsed: number;
  peakUsed: number;
  /** ArrayBuffer backing stores at their highest (encoded chunks waiting to be sent). */
  peakBackingStorage: number;
  samples: number;
}

/** Polls the heap usage back to back, at most every `intervalMs`, until stop(). */
function sampleHeap(probe: HeapProbe, baseline: HeapUsage, intervalMs: number) {
  const peak: HeapPeak = {
    baselineUsed: baseline.usedSize,
    peakUsed: baseline.usedSize,
    peakBackingStorage: baseline.backingStorageSize,
    samples: 0,
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const u = await probe.usage();
        peak.peakUsed = Math.max(peak.peakUsed, u.usedSize);
        peak.peakBackingStorage = Math.max(peak.peakBackingStorage, u.backingStorageSize);
        peak.samples++;
      } catch {
        return; // the isolate went away; keep what was measured
      }
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop(): Promise<HeapPeak> {
      stopped = true;
      await loop;
      return peak;
    },
  };
}

export interface ExportOptions {
  apiUrl: string;
  apiKey: string;
  dateFrom: string;
  dateTo: string;
  expected: number;
  label: string;
  /** The workerd processes whose memory is sampled. */
  processes: WorkerdProcess[];
  sampleIntervalMs: number;
  heapProbe?: HeapProbe;
  heapSampleIntervalMs: number;
}

export async function runExport(o: ExportOptions): Promise<ExportRun> {
  const processes = o.processes;
  if (processes.length === 0) throw new Error("no workerd process to sample");
  const heapBaseline = await o.heapProbe?.usage().catch(() => undefined);
  const heapSampler =
    o.heapProbe && heapBaseline
      ? sampleHeap(o.heapProbe, heapBaseline, o.heapSampleIntervalMs)
      : undefined;
  const sampler = sampleMemory(processes, o.sampleIntervalMs);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let headersMs = Number.NaN;
  let ttfbMs = Number.NaN;
  let status = 0;
  const start = performance.now();
  let totalMs = Number.NaN;
  let readError: string | undefined;
  let sampled: ReturnType<typeof sampler.stop>;
  let heap: HeapPeak | undefined;
  try {
    const res = await fetch(`${o.apiUrl}/v3/contacts/query`, {
      method: "POST",
      headers: { APIKey: o.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ dateFrom: o.dateFrom, dateTo: o.dateTo }),
    });
    headersMs = performance.now() - start;
    status = res.status;
    if (!res.body) throw new Error(`export answered ${res.status} without a body`);
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (bytes === 0) ttfbMs = performance.now() - start;
        bytes += value.byteLength;
        chunks.push(value);
      }
    } catch (err) {
      // The server closed the connection mid-body: keep what arrived, to say how far it got.
      readError = String(err instanceof Error && err.cause ? err.cause : err);
    }
    totalMs = performance.now() - start;
  } finally {
    sampled = sampler.stop();
    heap = await heapSampler?.stop();
  }

  const text = Buffer.concat(chunks).toString("utf8");
  if (status !== 200)
    throw new Error(`export ${o.label} answered ${status}: ${text.slice(0, 300)}`);
  const problems: string[] = [];
  if (readError) problems.push(`the body broke off after ${bytes} bytes (${readError})`);
  let parsed: { id: number }[] = [];
  if (text.startsWith("[") && text.endsWith("]")) {
    parsed = JSON.parse(text) as { id: number }[];
  } else {
    problems.push(
      `the body is not a whole JSON array (it ends with ${JSON.stringify(text.slice(-12))})`,
    );
    parsed = completeDocuments(text);
  }
  let ordered = true;
  for (let i = 1; i < parsed.length; i++) {
    if ((parsed[i]?.id ?? 0) <= (parsed[i - 1]?.id ?? 0)) {
      ordered = false;
      break;
    }
  }
  if (parsed.length !== o.expected)
    problems.push(`${parsed.length} contacts arrived, ${o.expected} expected`);
  if (!ordered) problems.push("ids are not in ascending order");

  return {
    label: o.label,
    contacts: o.expected,
    status,
    bytes,
    headersMs: round(headersMs, 1),
    ttfbMs: round(ttfbMs, 1),
    totalMs: round(totalMs, 1),
    mbPerSecond: round(bytes / 1e6 / (totalMs / 1000), 1),
    parsedCount: parsed.length,
    ordered,
    ok: problems.length === 0,
    ...(problems.length > 0 && { problem: problems.join("; ") }),
    memory: sampled.peaks.map((p) => ({ ...p, deltaKiB: p.peakKiB - p.baselineKiB })),
    ...(heap && { heap }),
    samples: sampled.samples,
    maxSampleGapMs: round(sampled.maxGapMs, 1),
  };
}

/**
 * The whole documents at the start of a cut array body. Documents are separated by a bare "},{"
 * (Postgres's jsonb text puts a space inside nested arrays), so a few cut points are tried from
 * the end; a document ending in the body's last bytes is tried first.
 */
function completeDocuments(text: string): { id: number }[] {
  if (!text.startsWith("[")) return [];
  const candidates = [text.length];
  for (let at = text.lastIndexOf("},{"); at > 0 && candidates.length < 6; ) {
    candidates.push(at + 1);
    at = text.lastIndexOf("},{", at - 1);
  }
  for (const end of candidates) {
    try {
      return JSON.parse(`${text.slice(0, end)}]`) as { id: number }[];
    } catch {
      // cut inside a document: try the previous boundary
    }
  }
  return [];
}
