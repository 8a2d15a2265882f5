/** The soak's result: a table on the terminal, and JSON plus a short markdown in bench/results/. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitState } from "./common";
import type { SoakResult } from "./soak";

export interface SoakRecord extends SoakResult {
  at: string;
  target: string;
  database: string;
  git: GitState | undefined;
  node: string;
  cpus: number;
  loadAverage: { before: number[]; after: number[] };
  exportContacts: number;
}

function markdown(r: SoakRecord): string {
  const o = r.options;
  const rows = r.processes
    .filter((p) => p.baselineMiB !== null || p.endMiB !== null)
    .map(
      (p) =>
        `| ${p.label} | ${p.pid} | ${p.baselineMiB ?? "-"} | ${p.endMiB ?? "-"} | ${p.ratio ?? "-"} | ${p.workerd ? (p.ratio !== null && p.ratio <= 1 + o.maxGrowth ? "pass" : "FAIL") : "reported"} |`,
    );
  const series = r.processes
    .filter((p) => p.workerd)
    .map((p) => `- ${p.label} (pid ${p.pid}): ${p.rssMiB.join(", ")}`);
  const heap = r.heapMiB
    ? [
        "",
        "The Worker isolate's V8 heap at the same times (MiB, used / total):",
        r.heapMiB.used.map((u, i) => `${u ?? "-"}/${r.heapMiB?.total[i] ?? "-"}`).join(", "),
      ]
    : [];
  return [
    `# Soak ${r.at}: ${r.target}`,
    "",
    `E13 x${o.e13Connections} + E17 x${o.e17Connections} (an export of ${r.exportContacts} contacts) for ${o.seconds} s; RSS after ${o.baselineSeconds} s and at the end; a workerd process may grow by ${o.maxGrowth * 100}% at most.`,
    `${r.database}; git ${r.git?.head ?? "?"} (${r.git?.uncommittedFiles ?? "?"} uncommitted files); node ${r.node}; ${r.cpus} CPUs, load average ${r.loadAverage.before[0]?.toFixed(2)} before, ${r.loadAverage.after[0]?.toFixed(2)} after (throughput is only comparable on an idle machine; RSS growth is).`,
    "",
    "| process | pid | RSS after baseline MiB | RSS at end MiB | end / baseline | verdict |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `Load: E13 ${r.load.e13.requests} requests (${r.load.e13.rps} req/s, p50 ${r.load.e13.p50Ms} ms, ${r.load.e13.errors} errors), E17 ${r.load.e17.requests} requests (${r.load.e17.rps} req/s, p50 ${r.load.e17.p50Ms} ms, ${r.load.e17.errors} errors).`,
    "",
    `workerd RSS (MiB) every ${o.sampleSeconds} s, at ${r.sampleTimes.join(", ")} s:`,
    ...series,
    ...heap,
    "",
    r.failures.length === 0
      ? "Result: pass."
      : `Result: FAIL\n${r.failures.map((f) => `- ${f}`).join("\n")}`,
    "",
  ].join("\n");
}

/** Prints the result and writes `soak-<target>-<time>.json` and `.md` to `dir`. */
export async function writeSoakResult(r: SoakRecord, dir: string): Promise<void> {
  const text = markdown(r);
  console.log(`\n${text}`);
  await mkdir(dir, { recursive: true });
  const base = join(dir, `soak-${r.target}-${r.at.replaceAll(":", "").replace(/\..*/, "")}`);
  await writeFile(`${base}.json`, `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(`${base}.md`, text);
  console.log(`[bench] written: ${base}.json, ${base}.md`);
}
