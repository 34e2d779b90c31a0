import type { HttpClient } from "./http.js";

/** Export of folders and assets as packages. Thin typed methods; nothing MCP-specific. */
export class ExportApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
