import type { ServiceContext } from "../context.js";
import { type ActionRow, FINAL_STATUSES, getAction, unfinishedActions } from "../store/actions/read.js";
import { setActionStatus } from "../store/actions/write.js";
import { type ActionKind, CancelRequested, StopRequested } from "./action-kind.js";
import { ACTION_KINDS } from "./kinds.js";

/** How many actions run at once; the rest wait their turn (in submission order). */
export const DEFAULT_CONCURRENCY = 2;

/**
 * Runs long-running actions off the request path with bounded concurrency. A route creates the
 * action row (ACTIVE) and calls `submit`; the runner calls its kind's handler, which works in batches
 * and yields between them, then stores how it ended. Actions left ACTIVE by a crash are resumed by
 * `resumeInterrupted` at start-up (handlers record what they did, so they never apply anything twice);
 * one whose kind this program does not know is marked FAILED with a message.
 */
export class ActionRunner {
  private readonly queue: string[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Ids of the actions whose handlers are running (a stopped one may still be finishing its batch). */
  private readonly runningIds = new Set<string>();
  private stopping = false;
  private waiters: (() => void)[] = [];
  /** The handlers by `actions.kind`. */
  private readonly kinds: ReadonlyMap<string, ActionKind>;

  constructor(
    private readonly svc: ServiceContext,
    private readonly concurrency = DEFAULT_CONCURRENCY,
    kinds: readonly ActionKind[] = ACTION_KINDS,
  ) {
    this.kinds = new Map(kinds.map((k) => [k.kind, k]));
  }

  /** Queues an ACTIVE action to run. */
  submit(id: string): void {
    if (this.stopping) return; // resumed at the next start
    this.queue.push(id);
    this.pump();
  }

  /** Queues every action a previous run left ACTIVE. Returns how many were resumed. */
  resumeInterrupted(): number {
    let resumed = 0;
    const now = new Date(this.svc.now()).toISOString();
    for (const a of unfinishedActions(this.svc.db)) {
      if (this.kinds.has(a.kind)) {
        this.submit(a.id);
        resumed++;
      } else {
        setActionStatus(
          this.svc.db,
          a.id,
          "FAILED",
          now,
          `Interrupted by a restart of the service, and this version cannot resume a "${a.kind}" action; nothing more of it will be done`,
        );
      }
    }
    return resumed;
  }

  /** Resolves when nothing is running or queued (tests and benchmarks wait on it). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Ends an action from outside (a workflow terminated, an administrator's cancel): a queued or
   * pending one at once; a running one at its handler's next pause, keeping what it already did
   * (each batch was one transaction). Returns false when the action had already ended.
   */
  cancel(id: string, message: string, status: "CANCELLED" | "ABORTED" = "CANCELLED"): boolean {
    const a = getAction(this.svc.db, id);
    if (!a || FINAL_STATUSES.has(a.status)) return false;
    const i = this.queue.indexOf(id);
    if (i >= 0) this.queue.splice(i, 1);
    setActionStatus(this.svc.db, id, status, new Date(this.svc.now()).toISOString(), message);
    return true;
  }

  /** Whether the action is queued or its handler is still running: submitting it again would run it twice. */
  isBusy(id: string): boolean {
    return this.queue.includes(id) || this.runningIds.has(id);
  }

  /** Stops taking work and waits for running handlers to reach their next pause. */
  async close(): Promise<void> {
    this.stopping = true;
    this.queue.length = 0;
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift() as string;
      this.runningIds.add(id);
      const p = this.run(id).finally(() => {
        this.runningIds.delete(id);
        this.running.delete(p);
        this.pump();
        if (this.queue.length === 0 && this.running.size === 0) {
          const waiters = this.waiters;
          this.waiters = [];
          for (const w of waiters) w();
        }
      });
      this.running.add(p);
    }
  }

  private async run(id: string): Promise<void> {
    // Off the request path: the route has answered before any of the work starts.
    await new Promise((resolve) => setImmediate(resolve));
    const { db } = this.svc;
    const action = getAction(db, id);
    if (action?.status !== "ACTIVE") return;
    const kind = this.kinds.get(action.kind);
    const now = () => new Date(this.svc.now()).toISOString();
    if (!kind) {
      setActionStatus(db, id, "FAILED", now(), `No handler for actions of kind "${action.kind}"`);
      return;
    }
    try {
      const outcome = await kind.run({
        svc: this.svc,
        action,
        params: JSON.parse(action.params) as unknown,
        now,
        pause: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          if (this.stopping) throw new StopRequested();
          // Terminated from outside (cancel): stop at this batch boundary; what is done stays done.
          if (getAction(db, id)?.status !== "ACTIVE") throw new CancelRequested();
        },
      });
      const after = getAction(db, id) as ActionRow;
      if (FINAL_STATUSES.has(after.status)) return; // the handler ended it itself
      const status = outcome?.status ?? (after.failed > 0 ? "FINISHED_MIXED_OUTCOME" : "COMPLETED");
      setActionStatus(db, id, status, now(), outcome?.message ?? null);
    } catch (err) {
      if (err instanceof StopRequested || !db.open) return; // stays ACTIVE; resumed at the next start
      if (err instanceof CancelRequested) return; // whoever cancelled it set its final status
      console.error(`repository: action ${id} (${action.kind}) failed:`, err);
      setActionStatus(
        db,
        id,
        "FAILED",
        now(),
        "The action failed with an internal error; see the service's log",
      );
    }
  }
}
