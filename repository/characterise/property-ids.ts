/**
 * The technical properties characterisation records, as a generation's `xip:Properties/xip:Property`
 * names them: a group, a PUID and a property name, then the value.
 *
 * Sources: real Preservica 6.3 GenerationResponses (issue 19) carry `prp/3` "Image Width"; the other
 * names follow PRONOM's format-property names ("Image Width", "Image Height", "Bits Per Sample",
 * "Samples Per Pixel", …, as PRONOM's format reports list them) and the XIP schema (Group optional, PUID,
 * PropertyName, Value required; carj/pyPreservica test_data/XIP-V6.2.xsd, GenerationPropertyType). The
 * real registry's numbering of the other properties (PAR `prp/N`) is not published anywhere we could read,
 * so they carry PUIDs of our own in `x-prp/` (after PRONOM's `x-fmt/` for provisional entries) rather
 * than guessed `prp/` numbers a client could mistake for the real registry's.
 */

export interface PropertyId {
  group: string;
  puid: string;
  name: string;
}

const p = (group: string, puid: string, name: string): PropertyId => ({ group, puid, name });

export const PROPERTY = {
  imageWidth: p("Image", "prp/3", "Image Width"),
  imageHeight: p("Image", "x-prp/1", "Image Height"),
  bitsPerSample: p("Image", "x-prp/2", "Bits Per Sample"),
  samplesPerPixel: p("Image", "x-prp/3", "Samples Per Pixel"),
  colourSpace: p("Image", "x-prp/4", "Colour Space"),
  xResolution: p("Image", "x-prp/5", "X Resolution"),
  yResolution: p("Image", "x-prp/6", "Y Resolution"),
  cameraMake: p("Camera", "x-prp/7", "Camera Make"),
  cameraModel: p("Camera", "x-prp/8", "Camera Model"),
  captureDate: p("Camera", "x-prp/9", "Capture Date"),
  pageCount: p("Document", "x-prp/10", "Page Count"),
  duration: p("Audio", "x-prp/11", "Duration (s)"),
  sampleRate: p("Audio", "x-prp/12", "Sample Rate (Hz)"),
  channels: p("Audio", "x-prp/13", "Number Of Channels"),
  audioBitsPerSample: p("Audio", "x-prp/14", "Bits Per Sample"),
} as const satisfies Record<string, PropertyId>;

export type PropertyKey = keyof typeof PROPERTY;
