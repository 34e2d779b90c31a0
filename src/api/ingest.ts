import type { HttpClient } from "./http.js";

/** Ingest of packages into a folder. Thin typed methods; nothing MCP-specific. */
export class IngestApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
