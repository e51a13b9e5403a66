import { parentPort } from 'node:worker_threads';
import { type AuthInput, authSummary } from './authenticate.ts';

/**
 * SPF, DKIM and DMARC of one large message per task (DKIM hashes the whole body), off the event
 * loop. DNS questions go to the server's thread, which answers them from its cache.
 */
const waiting = new Map<
  number,
  { resolve: (value: string[] | string[][]) => void; reject: (error: Error) => void }
>();
let nextAsk = 0;

function resolver(name: string, rrtype: string): Promise<string[] | string[][]> {
  const askId = nextAsk++;
  return new Promise((resolve, reject) => {
    waiting.set(askId, { resolve, reject });
    parentPort!.postMessage({ ask: { askId, question: { name, rrtype } } });
  });
}

parentPort!.on(
  'message',
  async (message: {
    id?: number;
    input?: { raw: Uint8Array; auth: AuthInput };
    answer?: { askId: number; result?: string[] | string[][]; error?: { message: string; code?: string } };
  }) => {
    if (message.answer) {
      const asked = waiting.get(message.answer.askId);
      waiting.delete(message.answer.askId);
      if (!asked) return;
      if (message.answer.error) {
        // mailauth reads the resolver's error codes (ENOTFOUND, ENODATA, …).
        asked.reject(
          Object.assign(new Error(message.answer.error.message), { code: message.answer.error.code }),
        );
      } else asked.resolve(message.answer.result ?? []);
      return;
    }
    const { id, input } = message;
    try {
      parentPort!.postMessage({ id, output: await authSummary(input!.raw, input!.auth, resolver) });
    } catch (error) {
      parentPort!.postMessage({ id, error: (error as Error).message });
    }
  },
);
