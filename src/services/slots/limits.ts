/** A date range of slots (a CREATE, a listing, a save's slotsRequest) spans at most this many days. */
export const MAX_RANGE_DAYS = 366;

/**
 * Slots one call may create. 1,000 requests of 366 days each would be 366,000 rows in one
 * transaction; a season of every hour of every day (~9,000) still fits.
 */
export const MAX_SLOTS_PER_CALL = 10_000;
