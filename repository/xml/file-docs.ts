import type { TechnicalProperty } from "../store/characterisation/properties.js";
import type {
  BitstreamRecord,
  EntitySummary,
  FixityRecord,
  GenerationRecord,
  RepresentationRecord,
  RepresentationSummary,
} from "../store/entities/types.js";
import type { IntegrityCheckRecord } from "../store/files/integrity-history.js";
import { entityUrl, type ListMeta, openDocument, type RenderContext, writeListTail } from "./common.js";
import { hasOriginalName, isXip60 } from "./versions.js";

/**
 * EntityAPI documents of the content chain: representations of an asset, generations of a content
 * object, and bitstreams of a generation (wire-formats §2.10).
 */

function representationUrl(ctx: RenderContext, ioRef: string, type: string, idx: number): string {
  return `${entityUrl(ctx, "IO", ioRef)}/representations/${encodeURIComponent(type)}/${idx}`;
}

function generationUrl(ctx: RenderContext, coRef: string, idx: number): string {
  return `${entityUrl(ctx, "CO", coRef)}/generations/${idx}`;
}

function bitstreamUrl(ctx: RenderContext, coRef: string, generationIdx: number, idx: number): string {
  return `${generationUrl(ctx, coRef, generationIdx)}/bitstreams/${idx}`;
}

/** RepresentationsResponse: Representation type/name with the URL …/representations/{Type}/{n}. */
export function representationsDocument(
  ctx: RenderContext,
  ioRef: string,
  reps: RepresentationSummary[],
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "RepresentationsResponse").open("Representations");
  for (const r of reps) {
    w.leaf("Representation", representationUrl(ctx, ioRef, r.type, r.idx), { type: r.type, name: r.name });
  }
  w.close("Representations");
  return writeListTail(w, meta).close("RepresentationsResponse").toString();
}

/**
 * RepresentationResponse: xip:Representation (RepresentationFormats and RepresentationProperties from
 * XIP v6.2 on), then ContentObjects/ContentObject title/ref/type URLs.
 */
export function representationDocument(
  ctx: RenderContext,
  rep: RepresentationRecord,
  contentObjects: EntitySummary[],
): string {
  const w = openDocument(ctx, "RepresentationResponse");
  w.open("xip:Representation").leaf("xip:InformationObject", rep.io_ref).opt("xip:Name", rep.name);
  w.leaf("xip:Type", rep.type).open("xip:ContentObjects");
  for (const co of contentObjects) w.leaf("xip:ContentObject", co.ref);
  w.close("xip:ContentObjects");
  if (!isXip60(ctx.version)) w.leaf("xip:RepresentationFormats").leaf("xip:RepresentationProperties");
  w.close("xip:Representation");
  w.open("ContentObjects");
  for (const co of contentObjects) {
    w.leaf("ContentObject", entityUrl(ctx, "CO", co.ref), { title: co.title, ref: co.ref, type: "CO" });
  }
  w.close("ContentObjects");
  w.open("AdditionalInformation")
    .leaf("Self", representationUrl(ctx, rep.io_ref, rep.type, rep.idx))
    .close("AdditionalInformation");
  return w.close("RepresentationResponse").toString();
}

/** GenerationsResponse: Generation active=… with the URL …/generations/{n}. */
export function generationsDocument(
  ctx: RenderContext,
  coRef: string,
  gens: { idx: number; active: number }[],
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "GenerationsResponse").open("Generations");
  for (const g of gens) {
    w.leaf("Generation", generationUrl(ctx, coRef, g.idx), { active: g.active === 1 ? "true" : "false" });
  }
  w.close("Generations");
  return writeListTail(w, meta).close("GenerationsResponse").toString();
}

/**
 * GenerationResponse: xip:Generation (original and active always present; no Label, which the schema
 * allows but no real reply carries), then, directly under the root, Bitstreams/Bitstream filename=… with each bitstream's URL (clients look for it there).
 */
export function generationDocument(
  ctx: RenderContext,
  g: GenerationRecord,
  bitstreams: BitstreamRecord[],
  properties: readonly TechnicalProperty[] = [],
): string {
  const w = openDocument(ctx, "GenerationResponse");
  w.open("xip:Generation", {
    original: g.original === 1 ? "true" : "false",
    active: g.active === 1 ? "true" : "false",
  })
    .leaf("xip:ContentObject", g.co_ref)
    .opt("xip:FormatGroup", g.format_group)
    .opt("xip:EffectiveDate", g.effective_date)
    .open("xip:Bitstreams");
  for (const b of bitstreams) w.leaf("xip:Bitstream", b.filename);
  w.close("xip:Bitstreams").open("xip:Formats");
  if (g.format_puid || g.format_name) {
    w.open("xip:Format", { valid: "true" })
      .leaf("xip:PUID", g.format_puid ?? "")
      .leaf("xip:Priority", 1)
      .leaf("xip:IdentificationMethod", g.format_puid ? "Signature" : "Extension")
      .leaf("xip:FormatName", g.format_name ?? "")
      .opt("xip:FormatVersion", g.format_version)
      .close("xip:Format");
  }
  w.close("xip:Formats").open("xip:Properties");
  // Technical properties from characterisation, after Formats as the XIP schema orders a Generation.
  for (const p of properties) {
    w.open("xip:Property")
      .opt("xip:Group", p.group)
      .leaf("xip:PUID", p.puid)
      .leaf("xip:PropertyName", p.name)
      .leaf("xip:Value", p.value)
      .close("xip:Property");
  }
  w.close("xip:Properties").close("xip:Generation");
  w.open("Bitstreams");
  for (const b of bitstreams) {
    w.leaf("Bitstream", bitstreamUrl(ctx, g.co_ref, g.idx, b.idx), { filename: b.filename });
  }
  w.close("Bitstreams");
  w.open("AdditionalInformation")
    .leaf("Self", generationUrl(ctx, g.co_ref, g.idx))
    .close("AdditionalInformation");
  return w.close("GenerationResponse").toString();
}

/**
 * BitstreamResponse: xip:Bitstream (Filename, FileSize, PhysicalLocation?, OriginalName from v6.3 on
 * when it differs from Filename,
 * Fixities with AlgorithmRef before Value: clients read the two children by position), then
 * AdditionalInformation with Self, the IntegrityCheckHistory URL and the Content download URL, in the
 * order real replies give them.
 */
export function bitstreamDocument(
  ctx: RenderContext,
  g: GenerationRecord,
  b: BitstreamRecord,
  fixities: FixityRecord[],
): string {
  const self = bitstreamUrl(ctx, g.co_ref, g.idx, b.idx);
  const w = openDocument(ctx, "BitstreamResponse");
  w.open("xip:Bitstream").leaf("xip:Filename", b.filename).leaf("xip:FileSize", b.size);
  w.opt("xip:PhysicalLocation", b.physical_location);
  // Only where it says something: an original name that differs from the stored one (0 of 104 real 6.3
  // bitstreams carry the element, and the stored name is what most files were deposited as).
  if (hasOriginalName(ctx.version) && b.original_name !== b.filename)
    w.opt("xip:OriginalName", b.original_name);
  w.open("xip:Fixities");
  for (const f of fixities) {
    w.open("xip:Fixity")
      .leaf("xip:FixityAlgorithmRef", f.algorithm)
      .leaf("xip:FixityValue", f.value)
      .close("xip:Fixity");
  }
  w.close("xip:Fixities").close("xip:Bitstream");
  w.open("AdditionalInformation")
    .leaf("Self", self)
    .leaf("IntegrityCheckHistory", `${self}/integrity-check-history`)
    .leaf("Content", `${self}/content`)
    .close("AdditionalInformation");
  return w.close("BitstreamResponse").toString();
}

/**
 * The integrity checks of a bitstream, newest first: `IntegrityCheckHistory` elements (EntityAPI
 * namespace) holding xip:Type, Success, Date, AdapterName, Fixed and Reason (when it failed), as
 * pyPreservica's integrity_checks() reads them, then Paging and Self.
 */
export function integrityHistoryDocument(
  ctx: RenderContext,
  checks: IntegrityCheckRecord[],
  adapterName: string,
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "IntegrityCheckHistoryResponse").open("IntegrityChecks");
  for (const check of checks) {
    w.open("IntegrityCheckHistory")
      // The workflow re-reads every byte and recomputes the SHA-256: a full check, never a quick one.
      .leaf("xip:Type", "FULL")
      .leaf("xip:Success", check.success ? "true" : "false")
      .leaf("xip:Date", check.date)
      .leaf("xip:AdapterName", adapterName)
      .leaf("xip:Fixed", "false")
      .opt("xip:Reason", check.reason)
      .close("IntegrityCheckHistory");
  }
  w.close("IntegrityChecks");
  return writeListTail(w, meta).close("IntegrityCheckHistoryResponse").toString();
}
