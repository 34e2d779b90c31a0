/**
 * How many entities a long-running action handles per transaction. Between batches it yields, so the
 * service keeps answering (progress polls included) while a move of a large subtree runs.
 *
 * `PRESERVATION_ACTION_BATCH` (a whole number, 1 to 100000) overrides the default; it exists for
 * tests, which use small batches to interrupt an action half-way (docs/repository-api/
 * structure-and-deletion.md). Read at each run, so a test can set it for one spawned service.
 */
export const DEFAULT_ACTION_BATCH = 200;

export function actionBatchSize(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PRESERVATION_ACTION_BATCH?.trim();
  if (!raw) return DEFAULT_ACTION_BATCH;
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= 1 && n <= 100_000 ? n : DEFAULT_ACTION_BATCH;
}

/** `items` in consecutive slices of at most `size`. */
export function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
