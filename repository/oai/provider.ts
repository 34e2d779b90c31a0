import { type DcValue, dublinCoreValues } from "../search/dublin-core.js";
import { Permission, type Permissions, Role } from "../store/auth.js";
import type { Db } from "../store/db.js";
import {
  administratorEmail,
  earliestChange,
  findRecord,
  fragmentsOf,
  type OaiRecordRow,
  parentOf,
  type RecordFilter,
  readableFolder,
  recordsCount,
  recordsPage,
  setsCount,
  setsPage,
} from "../store/oai/read.js";
import {
  type Envelope,
  errorDocument,
  getRecordDocument,
  type HeaderInfo,
  identifyDocument,
  listIdentifiersDocument,
  listRecordsDocument,
  listSetsDocument,
  metadataFormatsDocument,
  type RecordInfo,
  type ResumptionInfo,
} from "./documents.js";
import {
  datestamp,
  identifierOf,
  isSetSpec,
  OaiError,
  type OaiRequest,
  readIdentifier,
  readRange,
  readRequest,
  shown,
} from "./request.js";
import { decodeToken, encodeToken, type ListState, type ListVerb } from "./tokens.js";

/**
 * The OAI-PMH data provider: answers one request (its arguments as name/value pairs) for one caller.
 * Records are the folders and assets the caller may read; sets are the folders, named by the path of
 * refs from the top (`<top ref>:<child ref>:…`), and a set holds everything below its folder.
 */

/** Records (or headers, or sets) per page; a resumption token fetches the next. */
export const PAGE_SIZE = 50;
export const METADATA_PREFIX = "oai_dc";
const REPOSITORY_NAME = "Preservation repository (local, Preservica-compatible)";
/** adminEmail when no enabled administrator has a usable address (the schema needs one). */
const FALLBACK_ADMIN_EMAIL = "repository-admin@localhost.localdomain";
const EMAIL = /^\S+@(\S+\.)+\S+$/;

export interface ProviderContext {
  db: Db;
  permissions: Permissions;
  /** Milliseconds since the epoch. */
  now: number;
  baseUrl: string;
}

/** The OAI-PMH document answering the request. */
export function answer(ctx: ProviderContext, params: [string, string][]): string {
  const env: Envelope = {
    responseDate: datestamp(new Date(ctx.now).toISOString()),
    baseUrl: ctx.baseUrl,
    request: {},
  };
  let req: OaiRequest;
  try {
    req = readRequest(params);
  } catch (e) {
    // badVerb and badArgument: the request element carries no attributes (§3.6).
    if (e instanceof OaiError) return errorDocument(env, [{ code: e.code, message: e.message }]);
    throw e;
  }
  env.request = echoed(req);
  const p = new Provider(ctx, env);
  try {
    switch (req.verb) {
      case "Identify":
        return p.identify();
      case "ListMetadataFormats":
        return p.listMetadataFormats(req.args.identifier);
      case "GetRecord":
        return p.getRecord(req.args.identifier as string, req.args.metadataPrefix as string);
      case "ListSets":
        return p.listSets(req.args.resumptionToken);
      case "ListIdentifiers":
      case "ListRecords":
        return p.list(req.verb, req.args);
    }
  } catch (e) {
    if (!(e instanceof OaiError)) throw e;
    const bare = e.code === "badArgument" ? { ...env, request: {} } : env;
    return errorDocument(bare, [{ code: e.code, message: e.message }]);
  }
}

class Provider {
  private readonly tags: string;
  private readonly setSpecs = new Map<string, string>();

  constructor(
    private readonly ctx: ProviderContext,
    private readonly env: Envelope,
  ) {
    this.tags = JSON.stringify(ctx.permissions.tagsWith(Permission.READ_METADATA));
  }

  identify(): string {
    const { db } = this.ctx;
    const email = administratorEmail(db, Role.ADMIN);
    const earliest = earliestChange(db) ?? new Date(this.ctx.now).toISOString();
    return identifyDocument(this.env, {
      repositoryName: REPOSITORY_NAME,
      adminEmail: email && EMAIL.test(email) ? email : FALLBACK_ADMIN_EMAIL,
      earliestDatestamp: datestamp(earliest),
    });
  }

  listMetadataFormats(identifier: string | undefined): string {
    // Every record can be disseminated as oai_dc (built from its Dublin Core, or its title at least),
    // so noMetadataFormats never applies; an unknown item is idDoesNotExist.
    if (identifier !== undefined) this.readableRecord(identifier);
    return metadataFormatsDocument(this.env);
  }

  getRecord(identifier: string, prefix: string): string {
    checkPrefix(prefix);
    return getRecordDocument(this.env, this.recordInfo(this.readableRecord(identifier)));
  }

  listSets(token: string | undefined): string {
    const state =
      token === undefined ? { verb: "ListSets" as const, after: 0 } : this.state(token, "ListSets");
    const { db } = this.ctx;
    const rows = setsPage(db, this.tags, state.after, PAGE_SIZE + 1);
    const counts = setsCount(db, this.tags, state.after);
    if (counts.total === 0) {
      throw new OaiError(
        "noSetHierarchy",
        "There are no sets for you: sets are folders, and you may read none (Read Metadata on their security tags)",
      );
    }
    const page = rows.slice(0, PAGE_SIZE);
    const sets = page.map((s) => ({
      setSpec: this.setSpecOf(s.ref),
      setName: s.title,
      description: s.description,
    }));
    return listSetsDocument(this.env, sets, this.resumption(token, state, rows, page, counts));
  }

  list(verb: "ListIdentifiers" | "ListRecords", args: Record<string, string>): string {
    const token = args.resumptionToken;
    const state: ListState =
      token === undefined
        ? {
            verb,
            prefix: args.metadataPrefix,
            from: args.from,
            until: args.until,
            set: args.set,
            after: 0,
          }
        : this.state(token, verb);
    checkPrefix(state.prefix as string);
    const filter = this.filter(state, token !== undefined);
    const { db } = this.ctx;
    const rows = recordsPage(db, filter, state.after, PAGE_SIZE + 1);
    const counts = recordsCount(db, filter, state.after);
    if (counts.total === 0) {
      throw new OaiError("noRecordsMatch", "No record you may read matches these arguments");
    }
    const page = rows.slice(0, PAGE_SIZE);
    const more = this.resumption(token, state, rows, page, counts);
    if (verb === "ListIdentifiers")
      return listIdentifiersDocument(
        this.env,
        page.map((r) => this.headerInfo(r)),
        more,
      );
    return listRecordsDocument(
      this.env,
      page.map((r) => this.recordInfo(r)),
      more,
    );
  }

  // --- helpers ---------------------------------------------------------------------------------------

  /** The list a token continues; badResumptionToken when it is not one of ours for this verb. */
  private state(token: string, verb: ListVerb): ListState {
    const state = decodeToken(token, verb);
    if (!state) {
      throw new OaiError(
        "badResumptionToken",
        `The resumptionToken "${shown(token)}" is not one this repository issued for ${verb}; start the list again without it`,
      );
    }
    return state;
  }

  private filter(state: ListState, fromToken: boolean): RecordFilter {
    let range: ReturnType<typeof readRange>;
    let setRef: string | null = null;
    try {
      range = readRange(state.from, state.until);
      if (state.set !== undefined) setRef = this.setFolder(state.set);
    } catch (e) {
      // A token whose arguments no longer read is the token's fault, not the harvester's arguments'.
      if (fromToken && e instanceof OaiError && e.code === "badArgument") {
        throw new OaiError(
          "badResumptionToken",
          "The resumptionToken is damaged; start the list again without it",
        );
      }
      throw e;
    }
    return {
      tags: this.tags,
      from: range.from?.start ?? null,
      untilBefore: range.until?.next ?? null,
      setRef,
    };
  }

  /** The folder a setSpec names (its ref path must be the folder's path now). */
  private setFolder(spec: string): string {
    if (!isSetSpec(spec)) {
      throw new OaiError(
        "badArgument",
        `set="${shown(spec)}" is not a setSpec; sets are folder refs joined by colons, as ListSets gives them`,
      );
    }
    if (setsCount(this.ctx.db, this.tags, 0).total === 0) {
      throw new OaiError("noSetHierarchy", "There are no sets for you: you may read no folder");
    }
    const ref = spec.slice(spec.lastIndexOf(":") + 1);
    const folder = readableFolder(this.ctx.db, this.tags, ref);
    if (!folder || this.setSpecOf(folder.ref) !== spec) {
      throw new OaiError(
        "noRecordsMatch",
        `There is no set "${shown(spec)}" you may read; ListSets lists them`,
      );
    }
    return folder.ref;
  }

  /** The page's resumption token: a new one when more follow, an empty one ending a paged list. */
  private resumption(
    token: string | undefined,
    state: ListState,
    rows: { id: number }[],
    page: { id: number }[],
    counts: { total: number; before: number },
  ): ResumptionInfo | undefined {
    const hasMore = rows.length > page.length;
    if (!hasMore && token === undefined) return undefined;
    const last = page[page.length - 1];
    return {
      token: hasMore && last ? encodeToken({ ...state, after: last.id }) : "",
      completeListSize: counts.total,
      cursor: counts.before,
    };
  }

  /** A record the caller may read, by identifier; idDoesNotExist otherwise (never saying which). */
  private readableRecord(identifier: string): OaiRecordRow {
    const id = readIdentifier(identifier);
    const row = id ? findRecord(this.ctx.db, id.type, id.ref) : undefined;
    if (!row || !this.ctx.permissions.permits(row.security_tag, Permission.READ_METADATA)) {
      throw new OaiError(
        "idDoesNotExist",
        `No record "${shown(identifier)}" that you may read; identifiers look like oai:so:<folder ref> or oai:io:<asset ref>`,
      );
    }
    return row;
  }

  private headerInfo(r: OaiRecordRow): HeaderInfo {
    return {
      identifier: identifierOf(r.type, r.ref),
      datestamp: datestamp(r.stamp),
      setSpecs: r.parent_ref ? [this.setSpecOf(r.parent_ref)] : [],
      deleted: r.deleted === 1,
    };
  }

  private recordInfo(r: OaiRecordRow): RecordInfo {
    return { ...this.headerInfo(r), dc: r.deleted === 1 ? [] : this.dublinCore(r) };
  }

  /** oai_dc values: the Dublin Core in the entity's fragments, with its title and description as fallback. */
  private dublinCore(r: OaiRecordRow): DcValue[] {
    const values = fragmentsOf(this.ctx.db, r.ref).flatMap((xml) => dublinCoreValues(xml));
    if (!values.some((v) => v.name === "title")) values.unshift({ name: "title", value: r.title });
    if (r.description && !values.some((v) => v.name === "description")) {
      values.push({ name: "description", value: r.description });
    }
    return values;
  }

  /** The setSpec of a folder: the refs from the top down to it, joined by colons. */
  private setSpecOf(folderRef: string): string {
    const known = this.setSpecs.get(folderRef);
    if (known) return known;
    const path: string[] = [];
    const seen = new Set<string>();
    for (let ref: string | null = folderRef; ref && !seen.has(ref); ref = parentOf(this.ctx.db, ref)) {
      seen.add(ref);
      path.unshift(ref);
    }
    const spec = path.join(":");
    this.setSpecs.set(folderRef, spec);
    return spec;
  }
}

/** The schema's type of metadataPrefix (and, below, a loose anyURI: no spaces or characters URIs escape). */
const PREFIX_TYPE = /^[A-Za-z0-9\-_.!~*'()]+$/;
const URI_LIKE = /^[^\s<>"{}|\\^`]+$/;

/**
 * The `request` element's attributes: the verb and arguments, each only when its value fits the type
 * the OAI-PMH schema gives that attribute (an unreadable metadataPrefix is still named in the error's
 * message, but echoing it would make the reply invalid).
 */
function echoed(req: OaiRequest): Record<string, string> {
  const out: Record<string, string> = { verb: req.verb };
  for (const [name, value] of Object.entries(req.args)) {
    if (name === "metadataPrefix" && !PREFIX_TYPE.test(value)) continue;
    if (name === "identifier" && !URI_LIKE.test(value)) continue;
    out[name] = value;
  }
  return out;
}

function checkPrefix(prefix: string): void {
  if (prefix !== METADATA_PREFIX) {
    throw new OaiError(
      "cannotDisseminateFormat",
      `This repository disseminates metadataPrefix=oai_dc only, not "${shown(prefix)}"; ListMetadataFormats lists it`,
    );
  }
}

/** A badArgument document for a request whose arguments could not be read at all (a POST's body). */
export function unreadableRequest(ctx: ProviderContext, message: string): string {
  const env: Envelope = {
    responseDate: datestamp(new Date(ctx.now).toISOString()),
    baseUrl: ctx.baseUrl,
    request: {},
  };
  return errorDocument(env, [{ code: "badArgument", message }]);
}
