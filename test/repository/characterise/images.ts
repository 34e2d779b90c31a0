/**
 * Small, valid image files built byte by byte for characterisation tests: a TIFF whose directory sits
 * after its pixels (as scanners write them), and a JPEG with an EXIF block naming a camera.
 */

type Entry = [tag: number, type: 2 | 3 | 4 | 5, value: string | number | number[]];

const TYPE_SIZE = { 2: 1, 3: 2, 4: 4, 5: 8 } as const;

/**
 * A little-endian TIFF structure (header + IFDs) laid out from `base` (its offsets are relative to the
 * TIFF header); `ifds[0]` is IFD0, the others are sub-directories that IFD0 entries point at through
 * tags given `{ ifd: n }` placeholders in `links`.
 */
function tiffDirectory(
  base: number,
  ifd0At: number,
  ifds: Entry[][],
  links: Record<number, number> = {},
): { bytes: Buffer; offsets: number[] } {
  // Lay out each IFD followed by its out-of-line values.
  const offsets: number[] = [];
  const parts: Buffer[] = [];
  let at = ifd0At;
  for (const entries of ifds) {
    offsets.push(at);
    const sorted = [...entries].sort((a, b) => a[0] - b[0]);
    const head = Buffer.alloc(2 + sorted.length * 12 + 4);
    head.writeUInt16LE(sorted.length, 0);
    const extra: Buffer[] = [];
    let extraAt = at + head.length;
    sorted.forEach(([tag, type, value], i) => {
      const o = 2 + i * 12;
      const data = encode(type, value);
      const count = type === 2 ? data.length : data.length / TYPE_SIZE[type];
      head.writeUInt16LE(tag, o);
      head.writeUInt16LE(type, o + 2);
      head.writeUInt32LE(count, o + 4);
      if (data.length <= 4) data.copy(head, o + 8);
      else {
        head.writeUInt32LE(extraAt - base, o + 8);
        const padded = data.length % 2 ? Buffer.concat([data, Buffer.alloc(1)]) : data;
        extra.push(padded);
        extraAt += padded.length;
      }
    });
    parts.push(head, ...extra);
    at = extraAt;
  }
  const bytes = Buffer.concat(parts);
  // Patch sub-directory pointers now that every IFD's place is known.
  for (const [tag, ifd] of Object.entries(links)) {
    const sorted = [...(ifds[0] as Entry[])].sort((a, b) => a[0] - b[0]);
    const i = sorted.findIndex((e) => e[0] === Number(tag));
    bytes.writeUInt32LE((offsets[ifd] as number) - base, 2 + i * 12 + 8);
  }
  return { bytes, offsets };
}

function encode(type: 2 | 3 | 4 | 5, value: string | number | number[]): Buffer {
  if (type === 2) return Buffer.from(`${value}\0`, "latin1");
  const values = Array.isArray(value) ? value : [value as number];
  const out = Buffer.alloc(values.length * TYPE_SIZE[type]);
  values.forEach((v, i) => {
    if (type === 3) out.writeUInt16LE(v, i * 2);
    else if (type === 4) out.writeUInt32LE(v, i * 4);
    else {
      out.writeUInt32LE(v, i * 8);
      out.writeUInt32LE(1, i * 8 + 4);
    }
  });
  return out;
}

/** An uncompressed RGB TIFF, its pixels first and its directory after them (beyond the first 512 KiB). */
export function scannedTiff(width: number, height: number): Buffer {
  const pixels = width * height * 3;
  const ifdAt = 8 + pixels;
  const { bytes } = tiffDirectory(0, ifdAt, [
    [
      [256, 3, width],
      [257, 3, height],
      [258, 3, [8, 8, 8]],
      [259, 3, 1],
      [262, 3, 2],
      [271, 2, "Epson"],
      [272, 2, "Perfection V850"],
      [273, 4, 8],
      [277, 3, 3],
      [278, 3, height],
      [279, 4, pixels],
      [282, 5, 600],
      [283, 5, 600],
      [296, 3, 2],
    ],
  ]);
  const header = Buffer.alloc(8);
  header.write("II", 0, "latin1");
  header.writeUInt16LE(42, 2);
  header.writeUInt32LE(ifdAt, 4);
  return Buffer.concat([header, Buffer.alloc(pixels, 0x80), bytes]);
}

/** A baseline JPEG header (SOF0 with its dimensions) after an EXIF block naming a camera and a capture date. */
export function cameraJpeg(width: number, height: number): Buffer {
  // The TIFF structure inside APP1 starts after "Exif\0\0"; its offsets count from its own header.
  const tiffHeader = Buffer.alloc(8);
  tiffHeader.write("II", 0, "latin1");
  tiffHeader.writeUInt16LE(42, 2);
  tiffHeader.writeUInt32LE(8, 4);
  const { bytes } = tiffDirectory(
    0,
    8,
    [
      [
        [271, 2, "Canon"],
        [272, 2, "Canon EOS 5D"],
        [34665, 4, 0],
      ],
      [
        [36867, 2, "2019:06:14 09:30:05"],
        [40961, 3, 1],
      ],
    ],
    { 34665: 1 },
  );
  const exif = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiffHeader, bytes]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(exif.length + 2, 2);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, exif, sof, Buffer.from([0xff, 0xd9])]);
}
