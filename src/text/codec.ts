// Byte <-> text codec for file tools: BOM sniffing, lossless-aware decoding, re-encoding, binary and image sniffing.
// Pure. When decodeText() says `lossless`, encodeText() gives the input bytes back, so an edit cannot rewrite the rest.

import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/** Encodings a file can be read and written in. `utf8bom`, `utf16le` and `utf16be` carry a BOM on disk. */
export type TextEncodingName = 'utf8' | 'utf8bom' | 'utf16le' | 'utf16be' | 'latin1';

/** Result of {@link decodeText}: the text without BOM, the encoding to write it back in, whether that is exact. */
export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** encodeText(text, encoding) reproduces the input bytes exactly. */
  lossless: boolean;
}

const BOM_UTF8 = Buffer.from([0xef, 0xbb, 0xbf]);
const BOM_UTF16LE = Buffer.from([0xff, 0xfe]);
const BOM_UTF16BE = Buffer.from([0xfe, 0xff]);

// ignoreBOM: true means "do not strip a BOM": we strip exactly one BOM ourselves, so a second
// BOM right after the first is content and must survive in `text`.
const UTF8_REPLACE = new TextDecoder('utf-8', { ignoreBOM: true });
const UTF16LE_FATAL = new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true });
const UTF16LE_REPLACE = new TextDecoder('utf-16le', { ignoreBOM: true });
const UTF16BE_FATAL = new TextDecoder('utf-16be', { fatal: true, ignoreBOM: true });
const UTF16BE_REPLACE = new TextDecoder('utf-16be', { ignoreBOM: true });

/** How many leading bytes the binary heuristic looks at. */
const SNIFF_BYTES = 8 * 1024;
/** Above this share of suspicious control characters the content is treated as binary. */
const CONTROL_RATIO_LIMIT = 0.3;

// Any character outside U+0000..U+00FF cannot be written as Latin-1.
const NON_LATIN1 = /[^\u0000-\u00ff]/;

/** A Buffer view over the same memory (no copy), so Buffer's fast native codecs can be used. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The encoding a byte-order mark names, else `utf8` (`latin1` is only decodeText's fallback: any bytes are Latin-1). */
export function detectEncoding(bytes: Uint8Array): 'utf8' | 'utf8bom' | 'utf16le' | 'utf16be' {
  const b0 = bytes[0];
  const b1 = bytes[1];
  if (b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf) return 'utf8bom';
  if (b0 === 0xff && b1 === 0xfe) return 'utf16le';
  if (b0 === 0xfe && b1 === 0xff) return 'utf16be';
  return 'utf8';
}

/**
 * Decodes file bytes to text, stripping exactly one BOM. Invalid UTF-8 is decoded with U+FFFD and `lossless: false`,
 * or with `fallback === 'latin1'` as Latin-1 whole (a UTF-8 BOM included, as "ï»¿"), which is lossless. UTF-16
 * (BOM required) with an odd length or unpaired surrogates gives U+FFFD and `lossless: false`; no fallback there.
 */
export function decodeText(bytes: Uint8Array, fallback?: 'latin1'): DecodedText {
  const encoding = detectEncoding(bytes);
  if (encoding === 'utf16le') return decodeWith(bytes.subarray(2), encoding, UTF16LE_FATAL, UTF16LE_REPLACE);
  if (encoding === 'utf16be') return decodeWith(bytes.subarray(2), encoding, UTF16BE_FATAL, UTF16BE_REPLACE);
  const body = encoding === 'utf8bom' ? bytes.subarray(3) : bytes;
  // isUtf8 + toString (simdutf) is several times faster than a fatal TextDecoder, same result.
  if (isUtf8(body)) return { text: asBuffer(body).toString('utf8'), encoding, lossless: true };
  if (fallback === 'latin1') return { text: asBuffer(bytes).toString('latin1'), encoding: 'latin1', lossless: true };
  return { text: UTF8_REPLACE.decode(body), encoding, lossless: false };
}

function decodeWith(
  body: Uint8Array,
  encoding: TextEncodingName,
  fatal: TextDecoder,
  replacing: TextDecoder,
): DecodedText {
  try {
    return { text: fatal.decode(body), encoding, lossless: true };
  } catch {
    return { text: replacing.decode(body), encoding, lossless: false };
  }
}

/**
 * Encodes text (without BOM) for writing, with the BOM of `utf8bom`, `utf16le` and `utf16be`. An unpaired
 * surrogate becomes U+FFFD in UTF-8 (as Buffer does); UTF-16 writes the code unit as is.
 * @throws RangeError for `latin1` when the text has a character above U+00FF (it would be cut to its low byte).
 */
export function encodeText(text: string, encoding: TextEncodingName): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8bom':
      return Buffer.concat([BOM_UTF8, Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([BOM_UTF16LE, Buffer.from(text, 'utf16le')]);
    case 'utf16be': {
      // Node has no UTF-16BE encoder; the LE bytes swapped per code unit are exactly BE.
      const body = Buffer.from(text, 'utf16le').swap16();
      return Buffer.concat([BOM_UTF16BE, body]);
    }
    case 'latin1': {
      const bad = NON_LATIN1.exec(text);
      if (bad) {
        const cp = bad[0].codePointAt(0) ?? 0;
        throw new RangeError(
          `cannot encode U+${cp.toString(16).toUpperCase().padStart(4, '0')} at index ${bad.index} as latin1`,
        );
      }
      return Buffer.from(text, 'latin1');
    }
  }
}

/** Control characters that plain text legitimately contains: \t \n \v \f \r and ESC (ANSI colours). */
function isSuspiciousControl(c: number): boolean {
  return (c < 0x20 && (c < 0x09 || c > 0x0d) && c !== 0x1b) || c === 0x7f;
}

/**
 * Heuristic binary check on the first 8 KiB: a NUL, or more than 30% control characters other than \t \n \r \f \v
 * and ESC (DEL counts; 0x80–0x9F do not, they are UTF-8 continuation bytes). UTF-16 with a BOM is checked by
 * 16-bit code units instead, so a real UTF-16 document passes while garbage behind an FF FE prefix does not.
 */
export function isLikelyBinary(bytes: Uint8Array): boolean {
  const encoding = detectEncoding(bytes);
  const wide = encoding === 'utf16le' || encoding === 'utf16be';
  const end = Math.min(bytes.length, SNIFF_BYTES) & (wide ? ~1 : ~0);
  const start = wide ? 2 : 0;
  const units = wide ? (end - start) / 2 : end;
  if (units <= 0) return false;
  let controls = 0;
  for (let i = start; i < end; i += wide ? 2 : 1) {
    const a = bytes[i]!;
    const unit = !wide ? a : encoding === 'utf16be' ? (a << 8) | bytes[i + 1]! : (bytes[i + 1]! << 8) | a;
    if (unit === 0) return true;
    if (isSuspiciousControl(unit)) controls++;
  }
  return controls / units > CONTROL_RATIO_LIMIT;
}

const startsWith = (bytes: Uint8Array, magic: string, at = 0) =>
  asBuffer(bytes)
    .subarray(at, at + magic.length)
    .equals(Buffer.from(magic, 'latin1'));

/**
 * Identifies PNG, JPEG, GIF (87a/89a) and WebP (RIFF....WEBP) images from their magic bytes.
 * Returns undefined for anything else, including truncated headers.
 */
export function sniffImageMime(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | undefined {
  if (startsWith(bytes, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (startsWith(bytes, '\xff\xd8\xff')) return 'image/jpeg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'image/gif';
  // "WEBP" at offset 8, after the RIFF chunk size.
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'image/webp';
  return undefined;
}
