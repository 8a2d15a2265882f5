-- A slot's (winery, experience, date, time) is unique as a constraint checked at the end of each
-- statement (DEFERRABLE INITIALLY IMMEDIATE) instead of an index checked row by row: E9 and
-- experience saves write all their moved slots in one UPDATE, and slots trading times (A to a
-- free time, B to A's, A to B's: valid in order, and valid at the end) failed on whichever row
-- came first. drizzle's schema cannot say DEFERRABLE, so src/db/schema/experiences.ts keeps the
-- index's declaration (same name, same columns); this migration is the truth.
DROP INDEX "slots_experience_date_time_key";--> statement-breakpoint
ALTER TABLE "slots" ADD CONSTRAINT "slots_experience_date_time_key"
  UNIQUE ("winery_id", "experience_id", "date", "time") DEFERRABLE INITIALLY IMMEDIATE;
