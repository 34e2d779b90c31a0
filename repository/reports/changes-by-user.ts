import {
  byText,
  type Report,
  type ReportInput,
  type ReportRow,
  type ReportStep,
  WINDOW_PARAMETERS,
} from "./definitions.js";
import { foldWindowEvents } from "./events-window.js";
import { readable } from "./scope.js";

/**
 * Changes by user: who changed what in a date window, per user, event type and command (the event
 * actions the service recorded: creations by ingest, metadata edits, moves, deletions ...): how many
 * events and actions, and the first and last of them. An action counts when its entity is still in the
 * store (live or in the recycle bin) and the user the report runs for may read it; an event counts in a
 * row when at least one of its actions does.
 */

interface Group {
  username: string;
  eventType: string;
  commandType: string;
  events: number;
  actions: number;
  first: string;
  last: string;
}

const GROUPED = `SELECT ev.username AS username, ev.type AS eventType, ea.command_type AS commandType,
         count(DISTINCT ev.id) AS events, count(*) AS actions, min(ev.date) AS first, max(ev.date) AS last
    FROM events ev
    JOIN event_actions ea ON ea.event_id = ev.id
    JOIN entities e ON e.ref = ea.entity_ref AND ${readable("e")}
   WHERE ev.id IN (SELECT value FROM json_each(@ids))
   GROUP BY ev.username, ev.type, ea.command_type`;

export const changesByUser: Report = {
  definition: {
    id: "changes-by-user",
    name: "Changes by user",
    description:
      "Per user, event type and command, the events and event actions recorded between from and to, with the first and last of them. Counts actions on entities still in the store that you may read.",
    parameters: [
      ...WINDOW_PARAMETERS,
      {
        name: "user",
        type: "username",
        required: false,
        description: "Only this user's changes (a user name such as curator)",
        default: "every user",
      },
    ],
    columns: [
      { name: "username", title: "User", type: "string" },
      { name: "eventType", title: "Event type", type: "string" },
      { name: "commandType", title: "Command", type: "string" },
      { name: "events", title: "Events", type: "integer" },
      { name: "actions", title: "Actions", type: "integer" },
      { name: "first", title: "First", type: "date" },
      { name: "last", title: "Last", type: "date" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { sums, done, total } = yield* foldWindowEvents<Group>(input, {
      sql: GROUPED,
      keyOf: (g) => `${g.username}\u0000${g.eventType}\u0000${g.commandType}`,
      add: (sum, g) => {
        sum.events += g.events;
        sum.actions += g.actions;
        sum.last = g.last > sum.last ? g.last : sum.last;
        sum.first = g.first < sum.first ? g.first : sum.first;
      },
    });
    const rows: ReportRow[] = sums
      .sort(
        (a, b) =>
          byText(a.username, b.username) ||
          byText(a.eventType, b.eventType) ||
          byText(a.commandType, b.commandType),
      )
      .map((g) => ({ ...g }));
    yield { rows, done, total };
  },
};
