/** Small helpers shared by the bench's modes: progress lines, units, settings from the environment. */
import { execFileSync } from "node:child_process";
import { round } from "./load";

export { round };
export const log = (line: string) => console.log(`[bench] ${line}`);
export const seconds = (since: number) => round((performance.now() - since) / 1000, 1);
export const kibToMib = (kib: number) => round(kib / 1024, 1);
export const bytesToMib = (bytes: number) => round(bytes / 1024 / 1024, 1);

export function numberEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}`);
  return value;
}

export type GitState = { head: string; uncommittedFiles: number };

/** The commit and the count of uncommitted changes the bench runs (for the record). */
export function gitState(): GitState | undefined {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
    const changed = git("status", "--porcelain");
    return {
      head: git("rev-parse", "--short", "HEAD"),
      uncommittedFiles: changed ? changed.split("\n").length : 0,
    };
  } catch {
    return undefined;
  }
}

/** An ISO time as the results' file names have it: 2026-11-26T12:00:00.000Z -> 20261126T120000. */
export const stampOf = (iso: string) => iso.replace(/[-:]/g, "").replace(/\.\d+Z$/, "");
