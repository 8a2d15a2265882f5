/**
 * Where the API reference UI is served from: Workers static assets (wrangler.toml `[assets]`),
 * filled from the pinned @scalar/api-reference by scripts/docs-ui.ts (hence a module of its own,
 * free of Worker types). Static assets rather than a text import into the Worker: the UI is 4.5 MB
 * (1.3 MB gzipped), which would make the Worker bundle five times larger and slower to start for
 * every API request, while assets are served by the edge without running the Worker at all.
 */
export const DOCS_UI_PATH = "/api/docs/ui";
