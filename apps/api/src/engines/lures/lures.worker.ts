import { parentPort } from 'node:worker_threads';
import { type QrTask, readQrCodes } from './qr.ts';

/** One message's pictures and PDFs per task, answered with the QR codes found or the error. */
parentPort!.on('message', ({ id, input }: { id: number; input: QrTask }) => {
  try {
    parentPort!.postMessage({ id, output: readQrCodes(input) });
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
  }
});
