// Hand-assembled WebAssembly: the encoding helpers the SIMD byte loops (byte-scanner, control-bytes) share.
//
// Pure module. The loops are a few dozen instructions each; writing their bytes here keeps them in
// the source, reviewable, with no toolchain and no binary blob.

/** Unsigned LEB128. */
export const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
export const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
export const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
/** A SIMD instruction (prefix 0xfd). */
export const simd = (op: number): number[] => [0xfd, ...leb(op)];

/**
 * A module importing one memory (`e.m`) and exporting one function `fn` of type (i32, i32) → i32
 * with `body` (locals declaration included, final `end` included).
 */
export function singleFunctionModule(fn: string, body: number[]): Uint8Array {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]),
    ...section(2, [1, ...name('e'), ...name('m'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(fn), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

// The few WebAssembly calls used here (lib "dom" is not in this Node project's types).
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (desc: { initial: number; maximum?: number }) => { buffer: ArrayBuffer; grow(pages: number): number };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
export const WASM_PAGE = 64 * 1024;
