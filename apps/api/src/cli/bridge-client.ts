import http from 'node:http';
import { CLI_BRIDGE_PATH } from '../modules/cli-bridge/cli-bridge.routes.ts';
import type { CliResult } from './commands.ts';
import type { ControlInfo } from './control-file.ts';

/** The bridge answered with an error status (its message), or not at all. */
export class BridgeError extends Error {
  override name = 'BridgeError';
}

/**
 * Ask the running server to run a command (the CLI bridge, loopback only). Plain `http`, no
 * timeout: a long command (a snapshot of a large database) is waited for, as long as it takes.
 */
export function callBridge(
  control: ControlInfo,
  body: { argv: string[]; cwd: string; stdin?: string | undefined },
): Promise<CliResult> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: control.port,
        path: CLI_BRIDGE_PATH,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          authorization: `Bearer ${control.token}`,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          let answer: unknown = {};
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // an answer that is not JSON: its status says enough
          }
          if (response.statusCode !== 200) {
            const message = (answer as { message?: string }).message ?? String(response.statusCode);
            reject(new BridgeError(`The server refused the command: ${message}`));
          } else resolve(answer as CliResult);
        });
      },
    );
    request.on('error', (error) =>
      reject(
        new BridgeError(
          `The Moat server (pid ${control.pid}) owns the embedded database but did not answer: ${error.message}`,
        ),
      ),
    );
    request.end(payload);
  });
}
