import { describe, expect, it } from "vitest";
import { SlotSet, type SlotState } from "../../src/services/slots/slot-set";

const slot = (id: string, date: string, parentSlotId: string | null = null): SlotState => ({
  id,
  experienceId: "e",
  date,
  time: "10:00:00",
  maxParties: 10,
  minParties: 1,
  enabledLanguages: [],
  defaultLanguages: [],
  active: true,
  parentSlotId,
  manuallyModified: false,
  reservedCount: 0,
  externalOccupants: 0,
  extraData: null,
});

const ids = (slots: SlotState[]) => slots.map((s) => s.id);

describe("SlotSet.series: a series from its index", () => {
  it("is the root and the slots naming it, in the order read or created, less the deleted", () => {
    const set = new SlotSet([
      slot("p", "2027-01-01"),
      slot("other", "2027-01-01", null),
      slot("c1", "2027-01-02", "p"),
      slot("c2", "2027-01-03", "p"),
    ]);
    set.create(slot("c3", "2027-01-04", "p"));
    set.delete("c1");
    expect(ids(set.series("p"))).toEqual(["p", "c2", "c3"]);
    expect(ids(set.series("other"))).toEqual(["other"]);
    expect(ids(set.series("unknown"))).toEqual([]);
  });

  it("names a slot of a series alone when its own id is given as the root", () => {
    const set = new SlotSet([slot("p", "2027-01-01"), slot("c1", "2027-01-02", "p")]);
    expect(ids(set.series("c1"))).toEqual(["c1"]);
  });

  it("keeps finding a slot by date and time after an update that moves it, and not at its old place", () => {
    const set = new SlotSet([slot("p", "2027-01-01")]);
    set.update("p", { ...slot("p", "2027-01-01"), maxParties: 5 });
    expect(set.at("e", "2027-01-01", "10:00:00")?.maxParties).toBe(5);
    set.update("p", { ...slot("p", "2027-02-01"), maxParties: 5 });
    expect(set.at("e", "2027-01-01", "10:00:00")).toBeUndefined();
    expect(set.at("e", "2027-02-01", "10:00:00")?.id).toBe("p");
    expect(ids(set.series("p"))).toEqual(["p"]);
  });
});
