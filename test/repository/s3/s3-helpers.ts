import { readdirSync } from "node:fs";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { XMLParser } from "fast-xml-parser";

/**
 * An S3 client set up the way the real service's clients set up theirs: path-style addressing on
 * `<service>/api/s3/buckets`, the Preservica access token as the access key and `NOT_USED` as the
 * secret, us-east-1, and checksums only when an operation requires them (bodies sent plain). Every
 * reply's headers are kept, so a test reads `Preservica-Progress-Token` off the PutObject or
 * CompleteMultipartUpload reply as pyPreservica does off botocore's raw response.
 */

export const BUCKET = "demo.package.upload";
export const PROGRESS = "preservica-progress-token";

export interface SeenReply {
  command: string;
  status: number;
  headers: Record<string, string>;
}

export interface TestS3 {
  client: S3Client;
  /** Every reply the client received, in order. */
  replies: SeenReply[];
  /** The last reply of a command, by name (e.g. "PutObjectCommand"). */
  last(command: string): SeenReply | undefined;
}

export function s3Client(baseUrl: string, token: string | (() => string)): TestS3 {
  const client = new S3Client({
    endpoint: `${baseUrl}/api/s3/buckets`,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: async () => ({
      accessKeyId: typeof token === "string" ? token : token(),
      secretAccessKey: "NOT_USED",
    }),
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
  });
  const replies: SeenReply[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        const result = await next(args);
        const res = result.response as { statusCode: number; headers: Record<string, string> };
        replies.push({ command: String(context.commandName), status: res.statusCode, headers: res.headers });
        return result;
      } catch (err) {
        const res = (err as { $response?: { statusCode: number; headers: Record<string, string> } })
          .$response;
        if (res)
          replies.push({
            command: String(context.commandName),
            status: res.statusCode,
            headers: res.headers,
          });
        throw err;
      }
    },
    { step: "deserialize", name: "keepReplyHeaders" },
  );
  return {
    client,
    replies,
    last: (command) => replies.filter((r) => r.command === command).at(-1),
  };
}

/** The error an SDK call fails with: its name (the S3 error code), HTTP status and message. */
export async function s3Failure(
  p: Promise<unknown>,
): Promise<{ name: string; status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode ?? 0, message: e.message };
  }
  throw new Error("the S3 call succeeded; a refusal was expected");
}

const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: false });

/** An S3 XML reply parsed (root element name → content). */
export function parseS3Xml(body: string): Record<string, Record<string, unknown>> {
  return xml.parse(body) as Record<string, Record<string, unknown>>;
}

/** The Code and Message of an S3 `<Error>` reply. */
export async function s3Error(res: Response, status: number): Promise<{ code: string; message: string }> {
  const body = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${body}`);
  const err = parseS3Xml(body).Error as { Code: string; Message: string } | undefined;
  if (!err) throw new Error(`not an S3 error document: ${body}`);
  return { code: err.Code, message: err.Message };
}

/** Files left in a folder of the data directory (packages/, s3-uploads/), none if it does not exist. */
export function filesIn(dataDir: string, folder: string): string[] {
  try {
    return readdirSync(join(dataDir, folder));
  } catch {
    return [];
  }
}
