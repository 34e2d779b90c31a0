import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configEventFilterInfo, configEventsPage } from "../../../repository/store/config-events/read.js";
import { recordConfigEvent } from "../../../repository/store/config-events/write.js";
import { type Db, openDatabase } from "../../../repository/store/db.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** Config events: appended with the change, read newest first, filtered, paged. */
describe("config events store", () => {
  let dir: string;
  let db: Db;
  beforeAll(() => {
    dir = tempDir("config-events-");
    db = openDatabase(dir);
  });
  afterAll(() => {
    db.close();
  });

  it("records, filters and pages, newest first, and lists the values that occur", () => {
    recordConfigEvent(db, {
      username: "manager",
      category: "USER",
      commandType: "CREATE",
      subject: "jdoe",
      summary: "Created user jdoe",
      at: "2026-11-01T10:00:00.000Z",
    });
    recordConfigEvent(db, {
      username: "manager",
      category: "STORAGE",
      commandType: "UPDATE",
      subject: "adapter-1",
      summary: "Updated storage adapter adapter-1",
      details: { before: { name: "a" }, after: { name: "b" } },
      at: "2026-11-02T10:00:00.000Z",
    });
    const all = configEventsPage(db, {}, 0, 10);
    expect(all.total).toBe(2);
    expect(all.events.map((e) => e.subject)).toEqual(["adapter-1", "jdoe"]);
    expect(JSON.parse(all.events[0]?.details ?? "{}")).toEqual({
      before: { name: "a" },
      after: { name: "b" },
    });
    expect(configEventsPage(db, { category: "USER" }, 0, 10).events.map((e) => e.subject)).toEqual(["jdoe"]);
    expect(configEventsPage(db, { from: "2026-11-02T00:00:00.000Z" }, 0, 10).total).toBe(1);
    expect(configEventsPage(db, {}, 1, 1).events.map((e) => e.subject)).toEqual(["jdoe"]);
    expect(configEventFilterInfo(db)).toEqual({
      categories: ["STORAGE", "USER"],
      commandTypes: ["CREATE", "UPDATE"],
    });
  });

  it("rolls back with the change it belongs to", () => {
    const before = configEventsPage(db, {}, 0, 10).total;
    expect(() =>
      db.transaction(() => {
        recordConfigEvent(db, {
          username: "m",
          category: "SYSTEM",
          commandType: "UPDATE",
          subject: "x",
          summary: "x",
        });
        throw new Error("the change failed");
      })(),
    ).toThrow("the change failed");
    expect(configEventsPage(db, {}, 0, 10).total).toBe(before);
  });
});
