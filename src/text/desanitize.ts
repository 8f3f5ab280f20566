// Undo the API's sanitisation of special tags in model output (seed 000 "API 反消毒").

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
  let text = s;
  for (const [short, long] of DESANITIZATIONS) if (text.includes(short)) text = text.split(short).join(long);
  return { text, changed: text !== s };
}
