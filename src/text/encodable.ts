// Can this text be written in that encoding without inventing bytes? (never write a U+FFFD that was not there)
import type { TextEncodingName } from './codec.js';
import { runSteps, SCAN_STEP, type Steps } from './steps.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** A reason the text cannot be encoded losslessly, or undefined when it can. */
export function unencodableReason(text: string, encoding: TextEncodingName): string | undefined {
  return runSteps(unencodableReasonSteps(text, encoding));
}

/**
 * unencodableReason() a window at a time (a 256 MB Write is not one regex pass), with the same answer:
 * a lone surrogate anywhere is reported before a character beyond Latin-1. Windows never split a pair.
 */
export function* unencodableReasonSteps(text: string, encoding: TextEncodingName): Steps<string | undefined> {
  if (text.length > SCAN_STEP) {
    for (const check of encoding === 'latin1' ? [LONE_SURROGATE, BEYOND_LATIN1] : [LONE_SURROGATE]) {
      for (let at = 0; at < text.length; ) {
        let end = Math.min(text.length, at + SCAN_STEP);
        const last = text.charCodeAt(end - 1);
        if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
        const window = text.slice(at, end);
        if (check.test(window)) return reasonOf(window, encoding);
        at = end;
        yield;
      }
    }
    return undefined;
  }
  return reasonOf(text, encoding);
}

function reasonOf(text: string, encoding: TextEncodingName): string | undefined {
  if (LONE_SURROGATE.test(text)) return 'it contains an unpaired UTF-16 surrogate, which no Unicode encoding can store';
  if (encoding === 'latin1') {
    const m = BEYOND_LATIN1.exec(text);
    if (m) return `the file is Latin-1 and the text contains "${m[0]}" (U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which Latin-1 cannot store`;
  }
  return undefined;
}
