import type { HttpClient } from "./http.js";

/** Admin, Security, Storage, Entitlement, Settings, Authentication Management and registry APIs. Thin typed methods; nothing MCP-specific. */
export class AdminApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
