import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { MemoryTable } from './bayes.ts';

/**
 * The starting model shipped with Moat (`model.bin`): token counts learned from the training part
 * of the SpamAssassin public corpus by `node --import tsx scripts/train-spam-model.ts`.
 * Format: deflate of little-endian int32s — version, spam messages, ham messages, tokens, then per
 * token its key and its packed counts (spam * 65536 + ham).
 */
export const MODEL_FILE = path.join(import.meta.dirname, 'model.bin');
const VERSION = 1;

export function encodeModel(table: MemoryTable): Buffer {
  const entries = [...table.packed].sort((a, b) => a[0] - b[0]);
  const ints = new Int32Array(4 + entries.length * 2);
  ints.set([VERSION, table.nspam, table.nham, entries.length]);
  entries.forEach(([key, packed], i) => {
    ints[4 + i * 2] = key;
    ints[5 + i * 2] = packed;
  });
  return zlib.deflateSync(Buffer.from(ints.buffer), { level: 9 });
}

export function decodeModel(bytes: Buffer): MemoryTable {
  const raw = zlib.inflateSync(bytes);
  const ints = new Int32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  if (ints[0] !== VERSION) throw new Error(`spam model version ${ints[0]} is not ${VERSION}`);
  const table = new MemoryTable();
  table.nspam = ints[1] ?? 0;
  table.nham = ints[2] ?? 0;
  const count = ints[3] ?? 0;
  for (let i = 0; i < count; i++) table.packed.set(ints[4 + i * 2] as number, ints[5 + i * 2] as number);
  return table;
}

let shipped: MemoryTable | undefined;
/** The shipped model, read once per process. */
export function shippedModel(): MemoryTable {
  shipped ??= decodeModel(fs.readFileSync(MODEL_FILE));
  return shipped;
}
