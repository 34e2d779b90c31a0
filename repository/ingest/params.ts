/** The ingest action: its kind, its listing, and what it keeps in `actions.params`. */

export const INGEST_KIND = "ingest";
export const INGEST_PATH = "ingests";

export type IngestSource = "upload" | "s3";

export interface IngestParams {
  /** File name of the package in `<dataDir>/packages/`. */
  package: string;
  /** The folder the package goes into; null = the package's own `<Parent>` (XIP) or the top level. */
  parentRef: string | null;
  /** How the package arrived: POST to a folder, or the S3-compatible upload. */
  source: IngestSource;
  /** The name the client gave the package (file name or S3 key), for listings and messages. */
  packageName: string;
}
