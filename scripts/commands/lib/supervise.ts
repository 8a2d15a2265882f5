// npm run dev keeps its database when wrangler dies after a reload: see superviseWrangler.
import { watch } from "node:fs";

/** One run of wrangler dev, as the supervisor sees it. */
export interface WranglerRun {
  /** Resolves true once the API answers its health check, false when it never does. */
  ready: Promise<boolean>;
  /** Resolves with wrangler's exit code (null when a signal ended it). */
  exited: Promise<number | null>;
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

/**
 * Runs wrangler dev for as long as npm run dev runs, and resolves with the exit status to stop with.
 *
 * Wrangler reloads the Worker on every saved change, and exits when the new Worker fails to load
 * (a module that throws at import, e.g. a half-saved edit): the embedded database, the Neon
 * endpoints and the whole stack used to stop with it. Once the API has answered, such an exit
 * (a non-zero code) keeps the rest running and waits for the next change to start wrangler again.
 * Before the first answer, or when wrangler exits cleanly or on a signal, npm run dev stops: a
 * stack that never started should fail at once, not wait.
 */
export async function superviseWrangler(o: SuperviseOptions): Promise<number> {
  let answered = false;
  for (;;) {
    const run = o.start();
    if (await run.ready) {
      o.onReady(answered);
      answered = true;
    }
    const code = await run.exited;
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
