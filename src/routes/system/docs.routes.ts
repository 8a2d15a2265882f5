import { createRouter } from "../../lib/router";
import { DOCS_UI_PATH } from "./docs-ui-path";

/**
 * Scalar's options: everything that would reach another origin (fonts, telemetry, AI agent) off,
 * and every tag open, so each operation is on the page without a click (the API is small).
 */
const CONFIGURATION = {
  url: "/api/openapi.json",
  defaultOpenAllTags: true,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Winery API reference</title>
  </head>
  <body>
    <div id="app"></div>
    <script type="module">
      import { createApiReference } from "${DOCS_UI_PATH}/standalone.esm.js";
      createApiReference("#app", ${JSON.stringify(CONFIGURATION)});
    </script>
  </body>
</html>
`;

/**
 * The page allows only its own origin (plus inline styles and data: images, which the UI makes), so
 * the reference works offline and cannot be made to load anything from elsewhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
].join("; ");

export const docsRoutes = createRouter().get("/docs", (c) => {
  c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  return c.html(PAGE);
});
