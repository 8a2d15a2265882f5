/** A scratch database of its own for the bench on the server of DATABASE_URL, dropped afterwards. */
import pg from "pg";

export function redact(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
}

export interface Scratch {
  connectionString: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh database on the server of `serverUrl` (like test/global-setup.ts). */
export async function createScratchDatabase(serverUrl: string): Promise<Scratch> {
  const name = `bench_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    name,
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
