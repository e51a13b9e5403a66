import { Unzip, UnzipInflate, unzipSync } from 'fflate';

/** One allowance for everything inflated together (a message's archives, however nested). */
export interface UnzipBudget {
  bytes: number;
  entries: number;
}

/**
 * The entries of a zip, counting the bytes actually inflated against the message's budget (a
 * zip's own header can under-state an entry's size). Compressed bytes are fed in small slices,
 * so no single step inflates more than a few MB, and inflating stops the moment the budget is
 * spent: a zip bomb costs at most the budget.
 */
export function unzipBounded(bytes: Uint8Array, budget: UnzipBudget) {
  // What an unzip tool shows (the central directory), read without inflating anything.
  const listed: string[] = [];
  unzipSync(bytes, {
    filter: (file) => {
      listed.push(file.name);
      return false;
    },
  });
  const entries: Array<[string, Uint8Array]> = [];
  const walked: string[] = [];
  let exceeded = false;
  let failure: Error | null = null;
  const unzip = new Unzip((file) => {
    walked.push(file.name);
    if (exceeded) return;
    budget.entries -= 1;
    if (budget.entries < 0) {
      exceeded = true;
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (error) {
        failure = error;
        return;
      }
      if (exceeded) return;
      size += chunk.length;
      budget.bytes -= chunk.length;
      if (budget.bytes < 0) {
        exceeded = true;
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) entries.push([file.name, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)]);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const SLICE = 4 * 1024;
  for (let offset = 0; offset < bytes.length && !exceeded && !failure; offset += SLICE) {
    unzip.push(bytes.subarray(offset, offset + SLICE), offset + SLICE >= bytes.length);
  }
  if (failure) throw failure;
  // Entries are read in file order; a zip whose directory names other entries (one entry's
  // declared size swallowing the next, say) hides what an unzip tool would show the recipient.
  const files = (names: string[]) =>
    names
      .filter((n) => !n.endsWith('/'))
      .sort()
      .join('\n');
  const mismatch = !exceeded && files(listed) !== files(walked);
  return { entries, exceeded, mismatch, listed };
}
