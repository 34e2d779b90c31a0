import type { TechnicalProperty } from "../store/characterisation/properties.js";
import { PropertyList } from "./property-list.js";

/**
 * Technical properties of a WAV file from its RIFF header alone: channels, sample rate, bits per sample,
 * and the duration (the data chunk's size over the byte rate). Other audio formats get none yet: the
 * libraries that read them are not light enough for what they would add.
 */
export function audioProperties(head: Buffer, size: number): TechnicalProperty[] {
  if (
    head.length < 12 ||
    head.toString("latin1", 0, 4) !== "RIFF" ||
    head.toString("latin1", 8, 12) !== "WAVE"
  ) {
    return [];
  }
  let fmt: { channels: number; rate: number; byteRate: number; bits: number } | undefined;
  let dataBytes: number | undefined;
  for (let at = 12; at + 8 <= head.length; ) {
    const id = head.toString("latin1", at, at + 4);
    const length = head.readUInt32LE(at + 4);
    if (id === "fmt " && at + 24 <= head.length) {
      fmt = {
        channels: head.readUInt16LE(at + 10),
        rate: head.readUInt32LE(at + 12),
        byteRate: head.readUInt32LE(at + 16),
        bits: head.readUInt16LE(at + 22),
      };
    } else if (id === "data") {
      // A streamed WAV may leave the size unset (0 or 0xFFFFFFFF): the rest of the file is its data.
      dataBytes = length === 0 || length === 0xffffffff ? size - (at + 8) : Math.min(length, size - (at + 8));
      break;
    }
    at += 8 + length + (length % 2);
  }
  if (!fmt) return [];
  const seconds = dataBytes !== undefined && fmt.byteRate > 0 ? dataBytes / fmt.byteRate : undefined;
  return new PropertyList()
    .add("duration", seconds === undefined ? undefined : Number(seconds.toFixed(3)))
    .add("sampleRate", fmt.rate)
    .add("channels", fmt.channels)
    .add("audioBitsPerSample", fmt.bits)
    .toArray();
}
