/**
 * Copies the API reference UI (the browser build of the pinned @scalar/api-reference) into static/,
 * which wrangler.toml serves as Workers static assets, so /api/docs loads it from the API's own
 * origin and never from a CDN. Runs on `npm install` (postinstall); static/ is not committed.
 * Only the ES module build is copied: its entry loads its chunks on demand, and the 4 MB
 * single-file build and the source maps are left out.
 */
import { cp, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOCS_UI_PATH } from "../src/routes/system/docs-ui-path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The package's exports map hides dist/browser; its main entry sits in dist/.
const source = join(
  dirname(fileURLToPath(import.meta.resolve("@scalar/api-reference"))),
  "browser",
);
const staticDir = join(root, "static");

await rm(staticDir, { recursive: true, force: true });
await cp(source, join(staticDir, DOCS_UI_PATH), {
  recursive: true,
  filter: (path) => !path.endsWith(".map") && basename(path) !== "standalone.js",
});
console.log(`docs UI: ${source} -> static${DOCS_UI_PATH}`);
