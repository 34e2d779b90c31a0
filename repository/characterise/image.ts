import type exifr from "exifr";
import type { imageSize } from "image-size";
import type { TechnicalProperty } from "../store/characterisation/properties.js";
import { PropertyList } from "./property-list.js";

/**
 * Technical properties of an image: dimensions from `image-size` (the header, from the first bytes), and
 * from the EXIF/TIFF tags or a PNG's header (`exifr`, reading the file by parts, so a TIFF directory at the
 * end of a large scan is found without reading the pixels): bit depth, samples per pixel, colour space,
 * resolution, camera make and model, capture date.
 */

/** PNG IHDR colour types (PNG specification, table 11.1). */
const PNG_COLOUR: Record<number, string> = {
  0: "Greyscale",
  2: "RGB",
  3: "Indexed colour",
  4: "Greyscale with alpha",
  6: "RGB with alpha",
};

/** TIFF PhotometricInterpretation (TIFF 6.0 and its supplements). */
const PHOTOMETRIC: Record<number, string> = {
  0: "Greyscale (white is zero)",
  1: "Greyscale",
  2: "RGB",
  3: "Indexed colour",
  4: "Transparency mask",
  5: "CMYK",
  6: "YCbCr",
  8: "CIE L*a*b*",
  9: "ICC L*a*b*",
  10: "ITU L*a*b*",
};

/** EXIF ColorSpace. */
const EXIF_COLOUR_SPACE: Record<number, string> = { 1: "sRGB", 2: "Adobe RGB", 65535: "Uncalibrated" };

/** TIFF/EXIF ResolutionUnit: 2 inch (the default), 3 centimetre. */
const RESOLUTION_UNIT: Record<number, string> = { 1: "", 2: " dpi", 3: " dpcm" };

const EXIF_OPTIONS: Parameters<typeof exifr.parse>[1] = {
  exif: true,
  ihdr: true,
  tiff: true,
  gps: false,
  interop: false,
  ifd1: false,
  xmp: false,
  icc: false,
  iptc: false,
  jfif: false,
  translateKeys: true,
  translateValues: false,
  reviveValues: false,
  mergeOutput: true,
};

type Tags = Record<string, unknown>;

export async function imageProperties(head: Buffer, path: string): Promise<TechnicalProperty[]> {
  // Loaded on first use: exifr and image-size cost every start of the service a few milliseconds of loading,
  // and only characterisation needs them.
  const [{ default: exif }, { imageSize: sizeOf }] = await Promise.all([
    import("exifr"),
    import("image-size"),
  ]);
  const size = dimensions(sizeOf, head);
  const tags: Tags =
    ((await exif.parse(path, EXIF_OPTIONS).catch(() => undefined)) as Tags | undefined) ?? {};
  const bits = bitsPerSample(tags.BitDepth ?? tags.BitsPerSample);
  const list = new PropertyList()
    .add("imageWidth", size?.width ?? num(tags.ImageWidth) ?? num(tags.ExifImageWidth))
    .add("imageHeight", size?.height ?? num(tags.ImageHeight) ?? num(tags.ExifImageHeight))
    .add("bitsPerSample", bits?.depth)
    .add("samplesPerPixel", num(tags.SamplesPerPixel) ?? bits?.samples)
    .add("colourSpace", colourSpace(tags))
    .add("xResolution", resolution(tags.XResolution, tags.ResolutionUnit))
    .add("yResolution", resolution(tags.YResolution, tags.ResolutionUnit))
    .add("cameraMake", str(tags.Make))
    .add("cameraModel", str(tags.Model))
    .add("captureDate", exifDate(tags.DateTimeOriginal ?? tags.CreateDate));
  return list.toArray();
}

function dimensions(sizeOf: typeof imageSize, head: Buffer): { width: number; height: number } | undefined {
  try {
    const d = sizeOf(head);
    return d.width && d.height ? { width: d.width, height: d.height } : undefined;
  } catch {
    return undefined; // the header lies beyond the bytes read, or the format is not one image-size knows
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** One depth per sample: "8" when all samples share it (with their number), else "16,16,16,8". */
function bitsPerSample(raw: unknown): { depth: string; samples?: number } | undefined {
  if (typeof raw === "number") return { depth: String(raw) };
  // Several values come as a typed array.
  const v: unknown = ArrayBuffer.isView(raw) ? Array.from(raw as Uint16Array) : raw;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number")) {
    const same = v.every((x) => x === v[0]);
    return { depth: same ? String(v[0]) : v.join(","), samples: v.length };
  }
  return undefined;
}

function colourSpace(tags: Tags): string | undefined {
  const png = num(tags.ColorType);
  if (png !== undefined) return PNG_COLOUR[png];
  const photometric = num(tags.PhotometricInterpretation);
  if (photometric !== undefined) return PHOTOMETRIC[photometric];
  const exif = num(tags.ColorSpace);
  return exif === undefined ? undefined : EXIF_COLOUR_SPACE[exif];
}

function resolution(v: unknown, unit: unknown): string | undefined {
  const value = num(v);
  if (value === undefined || value <= 0) return undefined;
  const rounded = Math.round(value * 100) / 100;
  return `${rounded}${RESOLUTION_UNIT[num(unit) ?? 2] ?? ""}`;
}

/** EXIF "YYYY:MM:DD HH:MM:SS" (local time of the camera, no zone) as ISO 8601 without a zone. */
function exifDate(v: unknown): string | undefined {
  const m = typeof v === "string" ? /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(v) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}` : undefined;
}
