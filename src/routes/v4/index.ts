import { createRouter } from "../../lib/router";

/** Orders (E1, E2, E20) arrive here. */
export const v4 = createRouter();
