/**
 * /api/docs in a real browser: the Worker (its bundle and its static assets, as wrangler serves
 * them) on a local port, the page opened in Debian's headless Chromium. The reference must render
 * every path of the OpenAPI document while every request to another origin is blocked: it works
 * offline, from the pinned UI the API serves itself.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_startWorker } from "wrangler";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) {
  throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium package (.ci/run)`);
}
if (!available) {
  console.warn(`skipping the docs browser test: no ${CHROMIUM} (apt-get install -y chromium)`);
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { summary?: string }>>;
}

describe.skipIf(!available)("/api/docs in headless Chromium", () => {
  let worker: Awaited<ReturnType<typeof unstable_startWorker>>;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    // Nothing on the Node side goes online either: no telemetry, no fetch of a `Request.cf` sample.
    process.env.WRANGLER_SEND_METRICS = "false";
    process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
    worker = await unstable_startWorker({
      config: "wrangler.toml",
      // The docs and the document never touch the database; the Worker only needs the binding.
      bindings: {
        DATABASE_URL: { type: "plain_text", value: "postgres://unused@127.0.0.1:9/unused" },
      },
      dev: {
        server: { hostname: "127.0.0.1", port: 0 },
        inspector: false,
        watch: false,
        logLevel: "warn",
      },
    });
    await worker.ready;
    origin = (await worker.url).origin;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
  });

  it("renders every path of the document with no request leaving the API's origin", async () => {
    const doc = (await (await fetch(`${origin}/api/openapi.json`)).json()) as OpenApiDocument;
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(5);

    const page = await browser.newPage();
    const foreign: string[] = [];
    const failed: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin || url.startsWith("data:") || url.startsWith("blob:")) {
        return route.continue();
      }
      foreign.push(url);
      return route.abort("blockedbyclient");
    });
    page.on("requestfailed", (request) => {
      if (new URL(request.url()).origin === origin) failed.push(request.url());
    });
    // Script errors, and the console errors a Content-Security-Policy refusal leaves (a request the
    // policy refuses never reaches the network, so `route` above does not see it).
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });

    const response = await page.goto(`${origin}/api/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["x-request-id"]).toBeTruthy();

    // Scalar lists each operation with its path and summary (every tag open, see docs.routes.ts).
    const summaries = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation.summary ? [operation.summary] : [])),
    );
    const missing = async () => {
      const text = await page.locator("body").innerText();
      return [...paths, ...summaries].filter((expected) => !text.includes(expected));
    };
    await expect.poll(missing, { timeout: 60_000, interval: 500 }).toEqual([]);

    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
