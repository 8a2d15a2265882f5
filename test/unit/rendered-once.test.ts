import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { renderedOnce } from "../../src/db/raw-batch";

describe("renderedOnce", () => {
  it("renders the template once and puts each call's values in every place of its marker", () => {
    let builds = 0;
    const statement = renderedOnce(["winery", "id"], (p) => {
      builds++;
      return sql`select ${1} as one from t where t.winery_id = ${p.winery} and (t.id = ${p.id} or t.parent = ${p.id})`;
    });
    expect(statement({ winery: "w1", id: 7 })).toEqual([
      "select $1 as one from t where t.winery_id = $2 and (t.id = $3 or t.parent = $4)",
      [1, "w1", 7, 7],
    ]);
    expect(statement({ winery: "w2", id: null })).toEqual([
      "select $1 as one from t where t.winery_id = $2 and (t.id = $3 or t.parent = $4)",
      [1, "w2", null, null],
    ]);
    expect(builds).toBe(1);
  });

  it("refuses a template that inlines a marker into the text instead of binding it", () => {
    const statement = renderedOnce(["id"], (p) => sql`select ${sql.raw(`'${p.id}'`)}`);
    expect(() => statement({ id: 1 })).toThrow(/inlined/);
  });
});
