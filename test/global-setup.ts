import pg from "pg";
import type { TestProject } from "vitest/node";
import { MIGRATIONS_DIR } from "../scripts/commands/lib/paths";
import {
  applyMigrations,
  type DatabaseServer,
  startEmbeddedPostgres,
  startNeonLocal,
} from "../scripts/local-db";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    neonHttpEndpoint: string;
    neonWsProxy: string;
    statsUrl: string;
    faultsUrl: string;
  }
}

/** A fresh database on TEST_DATABASE_URL's server, dropped afterwards. */
async function createScratchDatabase(serverUrl: string) {
  const name = `test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    async close() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  } satisfies DatabaseServer;
}

export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const database = serverUrl
    ? await createScratchDatabase(serverUrl)
    : await startEmbeddedPostgres(); // a throwaway cluster in a temp dir, removed on close
  await applyMigrations(database.connectionString, MIGRATIONS_DIR);
  const neonLocal = await startNeonLocal({ faultInjection: true });

  project.provide("databaseUrl", database.connectionString);
  project.provide("neonHttpEndpoint", neonLocal.httpEndpoint);
  project.provide("neonWsProxy", neonLocal.wsProxy);
  project.provide("statsUrl", neonLocal.statsUrl);
  project.provide("faultsUrl", neonLocal.faultsUrl ?? "");
  console.log(
    `tests on ${serverUrl ? "TEST_DATABASE_URL (scratch database)" : "the embedded PostgreSQL (throwaway cluster)"}`,
  );

  return async () => {
    await neonLocal.close();
    await database.close();
  };
}
