// "Does this sample hold a control character?" at memory speed: Grep asks it of every matching file
// (Read's binary rule, codec.isLikelyBinary, counts them only when there is one).
//
// Pure module (no I/O). A regex over the sample as Latin-1 cost ~5 ns a byte — a fifth of a regex
// Grep over 50,000 small files; this WebAssembly SIMD loop looks at 16 bytes per step.
import { simd, singleFunctionModule, wasm, WASM_PAGE } from './wasm-module.js';

/** Bytes looked at: the sniff window of Read's binary rule (codec's SNIFF_BYTES). */
export const CONTROL_SNIFF_BYTES = 8 * 1024;

const [GET, SET, I32_CONST, I32_ADD, I32_GE_U, BR, BR_IF, END] = [0x20, 0x21, 0x41, 0x6a, 0x4f, 0x0c, 0x0d, 0x0b];
const [V128_LOAD, V128_CONST, I8X16_SPLAT, I8X16_EQ, I8X16_LT_U, V128_ANDNOT, V128_OR, V128_ANY_TRUE] = [0x00, 0x0c, 0x0f, 0x23, 0x26, 0x4f, 0x50, 0x53];
/** Below 0x20 but not suspicious: \t \n \v \f \r and ESC (codec's isSuspiciousControl). */
const ALLOWED = [9, 10, 11, 12, 13, 27];
const DEL = 0x7f;

/** Signed LEB128 of a small non-negative constant (i32.const). */
const sleb = (v: number): number[] => (v < 64 ? [v] : [(v & 0x7f) | 0x80, v >> 7]);

/**
 * ctl(p, n) → 1 when memory[p, p+n) (n a multiple of 16) holds a byte below 0x20 other than ALLOWED, or DEL.
 * Locals: 0 p, 1 n, 2 end; 3 acc, 4 v.
 */
function controlModule(): Uint8Array {
  const splat = (b: number) => [I32_CONST, ...sleb(b), ...simd(I8X16_SPLAT)];
  const eq = (b: number) => [GET, 4, ...splat(b), ...simd(I8X16_EQ)];
  const allowed = ALLOWED.flatMap((b, i) => (i === 0 ? eq(b) : [...eq(b), ...simd(V128_OR)]));
  const body = [
    2, 1, 0x7f, 2, 0x7b,
    GET, 0, GET, 1, I32_ADD, SET, 2,
    ...simd(V128_CONST), ...new Array<number>(16).fill(0), SET, 3,
    0x02, 0x40, 0x03, 0x40, // block, loop
    GET, 0, GET, 2, I32_GE_U, BR_IF, 1,
    GET, 0, ...simd(V128_LOAD), 0, 0, SET, 4,
    GET, 3,
    GET, 4, ...splat(0x20), ...simd(I8X16_LT_U), ...allowed, ...simd(V128_ANDNOT),
    ...eq(DEL), ...simd(V128_OR),
    ...simd(V128_OR), SET, 3,
    GET, 0, I32_CONST, 16, I32_ADD, SET, 0,
    BR, 0,
    END, END,
    GET, 3, ...simd(V128_ANY_TRUE),
    END,
  ];
  return singleFunctionModule('ctl', body);
}

let scanner: { memory: Uint8Array; ctl: (p: number, n: number) => number } | undefined;

/**
 * Whether the first CONTROL_SNIFF_BYTES of `bytes` hold a suspicious control character (a byte
 * below 0x20 other than \t \n \v \f \r ESC, or DEL; NUL counts too). One instance per thread.
 */
export function hasControlByte(bytes: Uint8Array): boolean {
  if (scanner === undefined) {
    const memory = new wasm.Memory({ initial: Math.ceil((CONTROL_SNIFF_BYTES + 16) / WASM_PAGE) });
    const instance = new wasm.Instance(new wasm.Module(controlModule()), { e: { m: memory } });
    scanner = { memory: new Uint8Array(memory.buffer), ctl: instance.exports['ctl'] as (p: number, n: number) => number };
  }
  const n = Math.min(bytes.length, CONTROL_SNIFF_BYTES);
  const whole = (n + 15) & ~15;
  scanner.memory.set(n === bytes.length ? bytes : bytes.subarray(0, n), 0);
  // Padding with spaces: a byte that is never suspicious.
  scanner.memory.fill(0x20, n, whole);
  return scanner.ctl(0, whole) !== 0;
}
