/** A failure the user can act on, explained in its message: scripts print it as one line. */
export class LocalDbError extends Error {}
