import type { Context } from "hono";
import { type AppEnv, nowIso } from "../context.js";
import type { ActionRow } from "../store/actions/read.js";
import { createAction, type NewAction } from "../store/actions/write.js";

/**
 * Starts a long-running action on behalf of the caller: stores it (ACTIVE unless `status` says
 * otherwise, e.g. a deletion PENDING a manager's approval) and queues an ACTIVE one on the runner.
 * The route then answers with its progress token; the work happens off the request path.
 */
export function startAction<E extends AppEnv>(c: Context<E>, a: Omit<NewAction, "username">): ActionRow {
  const { db, actions } = c.get("svc");
  const action = createAction(db, { ...a, username: c.get("caller").user.username }, nowIso(c));
  if (action.status === "ACTIVE") actions.submit(action.id);
  return action;
}
