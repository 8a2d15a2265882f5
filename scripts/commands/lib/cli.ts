// What every operator command shares: --help, usage on a bad command line, one clear line per
// failure (no stack trace unless DEBUG is set), and cleanup of what it started on any exit path.
import { LocalDbError } from "../../local-db/errors";

/** A command-line mistake: printed with the usage, exit status 2. */
export class UsageError extends Error {}

/**
 * `--help`/`-h` print the usage and exit 0; `parse` (node:util parseArgs, strict) throwing, or a
 * UsageError, prints the message and the usage and exits 2.
 */
export function parseCommandLine<T>(usage: string, parse: (args: string[]) => T): T {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h") || args[0] === "help") {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parse(args);
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
    process.exit(2);
  }
}

const cleanups: (() => Promise<unknown> | undefined)[] = [];

/** Runs `fn` when the command ends, however it ends (last registered, first run). */
export function onCleanup(fn: () => Promise<unknown> | undefined): void {
  cleanups.push(fn);
}

async function runCleanups(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
}

interface ErrnoLike {
  code?: string;
  address?: string;
  port?: number;
  hostname?: string;
  errors?: unknown[];
}

/** One line for a failure: the database's own message, or what a network error means. */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describeError(err.errors[0]);
  if (!(err instanceof Error)) return String(err);
  // PostgreSQL's own error, also when wrapped (drizzle's "Failed query: ..." has it as its cause).
  for (let c: unknown = err; c instanceof Error; c = c.cause) {
    const pg = c as Error & { severity?: string; code?: string };
    if (pg.severity && pg.code) return `${pg.message} (SQLSTATE ${pg.code})`;
  }
  const e = err as Error & ErrnoLike;
  const where = e.address ? `${e.address}${e.port ? `:${e.port}` : ""}` : "";
  if (e.code === "ECONNREFUSED") return `connection refused by ${where} (is PostgreSQL running?)`;
  if (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN") return `unknown host ${e.hostname ?? ""}`;
  if (e.code === "ETIMEDOUT" || /timeout/i.test(e.message))
    return `no answer from the database (${e.message})`;
  if (e.cause instanceof Error && !(err instanceof LocalDbError))
    return `${e.message}: ${describeError(e.cause)}`;
  return e.message.split("\n")[0] ?? e.message;
}

let stopping = false;

/**
 * Whether the command is stopping (a signal, its end or a failure): a child that exits now was
 * stopped with it (Ctrl-C reaches the whole process group), not lost.
 */
export const isStopping = (): boolean => stopping;

/** Lines a long-running command prints when a signal (Ctrl-C) stops it. */
export interface SignalLines {
  /** As it starts stopping. */
  stopping: string;
  /** Once everything it started has stopped. */
  stopped: string;
}

/**
 * Runs a command: a signal (Ctrl-C) or a failure runs the cleanups (stopping the embedded
 * PostgreSQL among them) before the process exits. `main` resolves with the exit status.
 */
export function runCommand(
  name: string,
  main: () => Promise<number | undefined>,
  onSignal?: SignalLines,
): void {
  const stop = async (code: number, signalled = false) => {
    if (stopping) return;
    stopping = true;
    if (signalled && onSignal) console.log(onSignal.stopping);
    await runCleanups();
    if (signalled && onSignal) console.log(onSignal.stopped);
    process.exit(code);
  };
  const signals: [NodeJS.Signals, number][] = [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ];
  for (const [signal, code] of signals) process.on(signal, () => void stop(code, true));
  main().then(
    (code) => stop(code ?? 0),
    (err: unknown) => {
      console.error(`${name}: ${describeError(err)}`);
      if (process.env.DEBUG && err instanceof Error) console.error(err.stack);
      return stop(1);
    },
  );
}
