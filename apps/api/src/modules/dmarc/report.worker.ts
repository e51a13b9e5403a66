import { parentPort } from 'node:worker_threads';
import { type ReadReport, readReport } from './aggregate-report.ts';

/** One report file per task, inflated and read off the event loop: the report, or why it is refused. */
parentPort!.on('message', ({ id, input }: { id: number; input: Uint8Array }) => {
  let output: ReadReport;
  try {
    output = readReport(input);
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
    return;
  }
  parentPort!.postMessage({ id, output });
});
