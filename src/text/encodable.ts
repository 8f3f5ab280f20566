// Can this text be written in that encoding without inventing bytes? (never write a U+FFFD that was not there)
import type { TextEncodingName } from './codec.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** A reason the text cannot be encoded losslessly, or undefined when it can (a lone surrogate is reported first). */
export function unencodableReason(text: string, encoding: TextEncodingName): string | undefined {
  if (LONE_SURROGATE.test(text)) return 'it contains an unpaired UTF-16 surrogate, which no Unicode encoding can store';
  if (encoding === 'latin1') {
    const m = BEYOND_LATIN1.exec(text);
    if (m)
      return `the file is Latin-1 and the text contains "${m[0]}" (U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which Latin-1 cannot store`;
  }
  return undefined;
}
