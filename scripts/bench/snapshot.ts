/**
 * The bench runs on a copy of the working tree: `wrangler dev` restarts workerd whenever a file of
 * the bundle changes, and a restart in the middle of a round or an export voids its figures.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, readdir, rm, symlink } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Top-level entries of the project that a snapshot leaves out (node_modules is linked instead). */
const NOT_COPIED = new Set([
  "node_modules",
  ".git",
  ".data",
  ".wrangler",
  "coverage",
  "dist",
  ".ci",
]);
/** Caches inside node_modules that tools write to: never shared with the snapshot. */
const NOT_LINKED = new Set([".cache", ".mf", ".vite", ".vite-temp", ".vitest-cache"]);

/**
 * A copy of the working tree in `dir`, for a run no edit can disturb. node_modules is a tree of
 * hard links (cp -al, under a second): with a symlink, esbuild would resolve packages to their real
 * path in the project and watch the project's own package.json and tsconfig.json, and an edit of
 * those restarts workerd. Tools replace package files rather than write into them, so the links
 * are safe; the caches tools do write into are left out. Falls back to a symlink when hard links
 * are impossible (another file system).
 */
export async function snapshot(dir: string, log: (line: string) => void): Promise<void> {
  const root = process.cwd();
  await cp(root, dir, {
    recursive: true,
    filter: (src) => !NOT_COPIED.has(relative(root, src).split(sep)[0] ?? ""),
  });
  const modules = resolve("node_modules");
  const entries = (await readdir(modules)).filter((e) => !NOT_LINKED.has(e));
  await mkdir(join(dir, "node_modules"));
  try {
    await execFileAsync("cp", [
      "-al",
      ...entries.map((e) => join(modules, e)),
      join(dir, "node_modules"),
    ]);
  } catch (err) {
    log(`snapshot: hard links failed (${String(err).split("\n")[0]}); symlinking node_modules`);
    await rm(join(dir, "node_modules"), { recursive: true, force: true });
    await symlink(modules, join(dir, "node_modules"), "dir");
  }
}
