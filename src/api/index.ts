import { ActionsApi } from "./actions.js";
import { AdminApi } from "./admin.js";
import { ContentApi } from "./content.js";
import { EntityWriteApi } from "./entity/write.js";
import { EntityApi } from "./entity.js";
import { ExportApi } from "./export.js";
import type { HttpClient } from "./http.js";
import { IngestApi } from "./ingest.js";
import { LifecycleApi } from "./lifecycle.js";
import { MetadataCsvApi } from "./metadata-csv.js";
import { OperationsApi } from "./operations.js";
import { RetentionApi } from "./retention.js";
import { StructureApi } from "./structure.js";
import { WebhooksApi } from "./webhooks.js";

/**
 * The one object tools and resources take: every API of the service over one authenticated HTTP client.
 * Adding an API touches this file and its own; nothing else.
 */
export function createServiceClient(http: HttpClient) {
  return {
    entity: new EntityApi(http),
    content: new ContentApi(http),
    entityWrite: new EntityWriteApi(http),
    structure: new StructureApi(http),
    lifecycle: new LifecycleApi(http),
    retention: new RetentionApi(http),
    metadataCsv: new MetadataCsvApi(http),
    ingest: new IngestApi(http),
    export: new ExportApi(http),
    actions: new ActionsApi(http),
    operations: new OperationsApi(http),
    admin: new AdminApi(http),
    webhooks: new WebhooksApi(http),
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
