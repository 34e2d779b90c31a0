import type { ServiceContext } from "../context.js";
import type { ActionRow } from "../store/actions/read.js";
import { createAction } from "../store/actions/write.js";
import { packageFileName } from "./packages.js";
import { INGEST_KIND, type IngestParams, type IngestSource } from "./params.js";

/**
 * The one way an ingest starts, for every route that receives packages (POST to a folder, the
 * S3-compatible upload): the package file is already complete in `<dataDir>/packages/`, and from here
 * on the ingest owns it (and removes it when it ends). Checks of the request (the folder, the caller's
 * rights) are the route's; the action checks everything again when it runs, as time may have passed.
 */
export interface StartIngest {
  /** A file directly under `<dataDir>/packages/`, owned by the ingest from now on. */
  packagePath: string;
  /** The folder to ingest into; null = the package's own `<Parent>` (XIP) or the top level. */
  parentRef: string | null;
  username: string;
  source: IngestSource;
  /** The client's name for the package (file name, S3 key), shown in listings. */
  packageName: string;
}

export function startIngest(svc: ServiceContext, opts: StartIngest): ActionRow {
  const parentRef = opts.parentRef?.toLowerCase() ?? null;
  const params: IngestParams = {
    package: packageFileName(svc.dataDir, opts.packagePath),
    parentRef,
    source: opts.source,
    packageName: opts.packageName,
  };
  const action = createAction(
    svc.db,
    {
      kind: INGEST_KIND,
      username: opts.username,
      entityRef: parentRef,
      entityType: parentRef ? "SO" : null,
      params,
    },
    new Date(svc.now()).toISOString(),
  );
  svc.actions.submit(action.id);
  return action;
}
