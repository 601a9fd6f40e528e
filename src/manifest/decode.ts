// A manifest is UTF-8. Decoding leniently would turn a Latin-1 password into replacement characters
// and send that, so invalid bytes are an error at their line, like any other problem of the file.
import type { Problem } from '../model/index.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The text of the manifest's bytes, or the problem at the first byte that is not UTF-8. */
export function decodeManifest(bytes: Uint8Array, file: string): { text: string } | { problem: Problem } {
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    const at = firstInvalidByte(bytes);
    // lastIndexOf from -1 would search from the end: the first byte starts the first line.
    const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
    const byte = `byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')}`;
    const message = isUtf16(bytes)
      ? `the manifest is UTF-16 (its first bytes are a UTF-16 byte order mark, as Windows PowerShell 5's \`>\` writes), not UTF-8; save the file as UTF-8`
      : `the manifest is not valid UTF-8: ${byte} here does not start or continue a UTF-8 character; save the file as UTF-8`;
    return { problem: { severity: 'error', file, line, column: at - lineStart + 1, field: '', message } };
  }
}

/** Whether the bytes open with a UTF-16 byte order mark (FF FE or FE FF). */
function isUtf16(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/** Continuation-byte ranges after each lead byte (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF). */
function continuation(lead: number): Array<[number, number]> | undefined {
  if (lead < 0x80) return [];
  if (lead >= 0xc2 && lead <= 0xdf) return [[0x80, 0xbf]];
  if (lead === 0xe0)
    return [
      [0xa0, 0xbf],
      [0x80, 0xbf],
    ];
  if (lead === 0xed)
    return [
      [0x80, 0x9f],
      [0x80, 0xbf],
    ];
  if (lead >= 0xe1 && lead <= 0xef)
    return [
      [0x80, 0xbf],
      [0x80, 0xbf],
    ];
  if (lead === 0xf0)
    return [
      [0x90, 0xbf],
      [0x80, 0xbf],
      [0x80, 0xbf],
    ];
  if (lead >= 0xf1 && lead <= 0xf3)
    return [
      [0x80, 0xbf],
      [0x80, 0xbf],
      [0x80, 0xbf],
    ];
  if (lead === 0xf4)
    return [
      [0x80, 0x8f],
      [0x80, 0xbf],
      [0x80, 0xbf],
    ];
  return undefined;
}

function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const ranges = continuation(bytes[i]!);
    if (!ranges) return i;
    for (let k = 0; k < ranges.length; k++) {
      const byte = bytes[i + 1 + k];
      const [low, high] = ranges[k]!;
      if (byte === undefined || byte < low || byte > high) return i;
    }
    i += ranges.length + 1;
  }
  return bytes.length;
}
