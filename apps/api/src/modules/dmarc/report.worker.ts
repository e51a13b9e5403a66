import { parentPort } from 'node:worker_threads';
import { type ReadReport, ReportRefused, readReport } from './aggregate-report.ts';
import { parseFailureReport } from './failure-report.ts';
import { parseTlsReport } from './tls-report.ts';

/** A failure or TLS report file to read (an aggregate report comes as the bare file). */
export interface OtherReportTask {
  kind: 'failure' | 'tls';
  file: Uint8Array;
}
export type OtherReportRead = { report: unknown; refused?: undefined } | { refused: string };

function readOther({ kind, file }: OtherReportTask): OtherReportRead {
  try {
    return { report: kind === 'failure' ? parseFailureReport(file) : parseTlsReport(file) };
  } catch (error) {
    if (error instanceof ReportRefused) return { refused: error.message };
    throw error;
  }
}

/** One report file per task, inflated and read off the event loop: the report, or why it is refused. */
parentPort!.on('message', ({ id, input }: { id: number; input: Uint8Array | OtherReportTask }) => {
  let output: ReadReport | OtherReportRead;
  try {
    output = input instanceof Uint8Array ? readReport(input) : readOther(input);
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
    return;
  }
  parentPort!.postMessage({ id, output });
});
