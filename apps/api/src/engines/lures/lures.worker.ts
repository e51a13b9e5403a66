import { parentPort } from 'node:worker_threads';
import { judgePages, type LureTask } from './judge.ts';
import { readQrCodes } from './qr.ts';

/**
 * One message's pictures (answered with the QR codes found) or large HTML/SVG pages (answered with
 * their evidence and links) per task, or the error.
 */
parentPort!.on('message', ({ id, input }: { id: number; input: LureTask }) => {
  try {
    parentPort!.postMessage({ id, output: 'qr' in input ? readQrCodes(input.qr) : judgePages(input.pages) });
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
  }
});
