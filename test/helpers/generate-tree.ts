// A generated source tree of N files with one known definition: the "find → read → edit" task of issue 9.
import fs from 'node:fs/promises';
import path from 'node:path';

export const INVOICE_DEFINITION = 'export function computeInvoiceTotal(items: Item[]): number {';

/**
 * Writes `files` TypeScript-ish files in nested packages (50 per directory) under `root`, with
 * a .gitignore'd node_modules copy of the definition as a decoy; one file defines
 * computeInvoiceTotal and every 97th calls it. Returns the defining file's absolute path.
 */
export async function generateTree(root: string, files: number): Promise<string> {
  const names = ['order', 'invoice', 'cart', 'price', 'item', 'user'];
  let defining = '';
  await fs.mkdir(path.join(root, 'node_modules', 'billing'), { recursive: true });
  await fs.writeFile(path.join(root, '.gitignore'), 'node_modules/\n');
  await fs.writeFile(path.join(root, 'node_modules', 'billing', 'index.ts'), `${INVOICE_DEFINITION}\n  return 0;\n}\n`);
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 500)}`, `mod${Math.floor(i / 50) % 10}`);
    if (i % 50 === 0) await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${names[i % names.length]}${i}.ts`);
    const lines = [`import { Item } from '../item';`, `export const value${i} = ${i};`];
    if (i === Math.floor(files * 0.7)) {
      lines.push(INVOICE_DEFINITION, '  return items.reduce((sum, item) => sum + item.price, 0);', '}');
      defining = file;
    }
    if (i % 97 === 0) lines.push(`export const total${i} = computeInvoiceTotal([]);`);
    await fs.writeFile(file, lines.join('\n') + '\n');
  }
  return defining;
}
