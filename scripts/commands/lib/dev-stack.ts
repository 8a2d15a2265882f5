import { existsSync, readFileSync } from "node:fs";
import { STACK_FILE } from "./paths";

/** What a running `npm run dev` publishes in DATA_DIR, so scripts use its database meanwhile. */
export interface StackState {
  pid: number;
  connectionString: string;
  apiUrl: string;
}

export function readStackState(): StackState | undefined {
  if (!existsSync(STACK_FILE)) return undefined;
  try {
    const state = JSON.parse(readFileSync(STACK_FILE, "utf8")) as StackState;
    process.kill(state.pid, 0); // throws when the dev stack is gone
    return state;
  } catch {
    return undefined;
  }
}
