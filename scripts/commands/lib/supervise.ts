// npm run dev keeps its database when wrangler dies after a reload: see superviseWrangler.
import { watch } from "node:fs";

/** One run of wrangler dev, as the supervisor sees it. */
export interface WranglerRun {
  /** Resolves true once the API answers its health check, false when it never does. */
  ready: Promise<boolean>;
  /** Resolves with wrangler's exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /**
   * Resolves if the API, once it has answered, stops answering its health check while wrangler
   * still runs (see watchHealth); never otherwise.
   */
  unresponsive?: Promise<void>;
  /** Stops this run (wrangler and everything it started); resolves once they are gone. */
  stop?: () => Promise<void>;
}

export interface SuperviseOptions {
  /** Starts wrangler dev (with the same arguments each time). */
  start: () => WranglerRun;
  /** Resolves at the next change to the Worker's sources or configuration. */
  nextChange: () => Promise<void>;
  /** Whether the command is stopping (Ctrl-C): a wrangler that exits then was stopped with it. */
  stopping: () => boolean;
  /** Called each time the API answers (first start and every restart). */
  onReady: (restarted: boolean) => void;
  /** One line for the person running npm run dev. */
  say: (line: string) => void;
}

/** What the supervisor's race resolves with when the API stopped answering. */
const UNRESPONSIVE: unique symbol = Symbol("unresponsive");

/**
 * Runs wrangler dev for as long as npm run dev runs, and resolves with the exit status to stop with.
 *
 * Wrangler reloads the Worker on every saved change, and exits when the new Worker fails to load
 * (a module that throws at import, e.g. a half-saved edit): the embedded database, the Neon
 * endpoints and the whole stack used to stop with it. Once the API has answered, such an exit
 * (a non-zero code) keeps the rest running and waits for the next change to start wrangler again.
 * Before the first answer, or when wrangler exits cleanly or on a signal, npm run dev stops: a
 * stack that never started should fail at once, not wait.
 *
 * A wrangler whose API stops answering while it runs (`unresponsive`) is stopped and started
 * again. An outside soak found the case: thousands of connections held open with bodies never
 * sent took wrangler's front workerd to the process's open-file limit; it crashed, and the
 * runtime wrangler restarted listened on the port but never answered, after the clients had left.
 */
export async function superviseWrangler(o: SuperviseOptions): Promise<number> {
  let answered = false;
  for (;;) {
    const run = o.start();
    if (await run.ready) {
      o.onReady(answered);
      answered = true;
    }
    const never = new Promise<never>(() => {});
    const outcome = await Promise.race([
      run.exited,
      (run.unresponsive ?? never).then((): typeof UNRESPONSIVE => UNRESPONSIVE),
    ]);
    if (outcome === UNRESPONSIVE) {
      if (o.stopping()) return 0;
      o.say(
        "the API has stopped answering its health check while wrangler runs (see above); restarting wrangler",
      );
      await run.stop?.();
      if (o.stopping()) return 0;
      continue;
    }
    const code = outcome;
    if (o.stopping()) return code ?? 0;
    if (!answered || code === null || code === 0) {
      o.say(`wrangler exited (${code ?? "signal"}); stopping`);
      return code || 1;
    }
    o.say(
      `wrangler exited (${code}): the Worker failed to load (see above). The database keeps running; save a change under src/ or to wrangler.toml to start wrangler again, or press Ctrl-C to stop.`,
    );
    await o.nextChange();
    if (o.stopping()) return code;
    o.say("change seen: starting wrangler again");
  }
}

/** How watchHealth checks: every `intervalMs`, each check given `timeoutMs`, `failures` in a row. */
export interface HealthWatch {
  intervalMs: number;
  timeoutMs: number;
  failures: number;
}

/**
 * npm run dev's watch on a running wrangler: every 5 s a health check with 10 s to answer; three
 * unanswered in a row (about 45 s without an answer) count as unresponsive. Under the heaviest
 * load measured (an outside soak at 20 clients on a loaded 2-CPU machine) health answered within
 * 0.9 s, so only a stack that has stopped serving fails three in a row.
 */
export const DEV_HEALTH_WATCH: HealthWatch = { intervalMs: 5000, timeoutMs: 10_000, failures: 3 };

/**
 * Resolves once `url` has left `failures` health checks in a row unanswered (no answer within
 * `timeoutMs`, or the connection refused or reset); checks every `intervalMs` for as long as
 * `running()` holds, and then never resolves. Any answer counts as one, an error status included:
 * a Worker that answers 500 after a broken edit is not mended by a restart (the next saved change
 * reloads it), a front end that answers nothing is.
 */
export function watchHealth(
  url: string,
  running: () => boolean,
  { intervalMs, timeoutMs, failures }: HealthWatch = DEV_HEALTH_WATCH,
): Promise<void> {
  return new Promise((resolve) => {
    let failed = 0;
    const check = async () => {
      if (!running()) return;
      let answered = false;
      try {
        const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await answer.body?.cancel();
        answered = true;
      } catch {
        // no answer in time, or the connection refused or reset
      }
      failed = answered ? 0 : failed + 1;
      if (failed >= failures && running()) resolve();
      else setTimeout(check, intervalMs).unref();
    };
    setTimeout(check, intervalMs).unref();
  });
}

/**
 * Resolves at the first change under any of `paths` (files or directories, watched recursively),
 * once the writes have settled for `settleMs` (an editor's save is often several events).
 */
export function nextChange(paths: string[], settleMs = 300): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const watchers = paths.map((path) =>
      watch(path, { recursive: true }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          for (const w of watchers) w.close();
          resolve();
        }, settleMs);
      }),
    );
  });
}
