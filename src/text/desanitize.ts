// Undo the API's sanitisation of special tags in model output (seed 000 "API 反消毒").
import { indexOfSteps } from './bounded-search.js';
import { runSteps, SCAN_STEP, type Steps } from './steps.js';

/** Short form the model saw → the form that is in the file. Order matters only for overlaps (none here). */
export const DESANITIZATIONS: ReadonlyArray<readonly [string, string]> = [
  ['<fnr>', '<function_results>'],
  ['<n>', '<name>'],
  ['</n>', '</name>'],
  ['<o>', '<output>'],
  ['</o>', '</output>'],
  ['<e>', '<error>'],
  ['</e>', '</error>'],
  ['<s>', '<system>'],
  ['</s>', '</system>'],
  ['<r>', '<result>'],
  ['</r>', '</result>'],
  ['< META_START >', '<META_START>'],
  ['< META_END >', '<META_END>'],
  ['< EOT >', '<EOT>'],
  ['< META >', '<META>'],
  ['< SOS >', '<SOS>'],
  ['\n\nH:', '\n\nHuman:'],
  ['\n\nA:', '\n\nAssistant:'],
];

/** Applies every substitution; returns the text and whether anything changed. */
export function desanitize(s: string): { text: string; changed: boolean } {
  return runSteps(desanitizeSteps(s));
}

/** desanitize() with a pause point every SCAN_STEP characters searched (old_string may be 50 MB). */
export function* desanitizeSteps(s: string): Steps<{ text: string; changed: boolean }> {
  let text = s;
  for (const [short, long] of DESANITIZATIONS) {
    if ((yield* indexOfSteps(text, short)) === -1) continue;
    text = text.split(short).join(long);
    if (text.length > SCAN_STEP) yield;
  }
  return { text, changed: text !== s };
}
