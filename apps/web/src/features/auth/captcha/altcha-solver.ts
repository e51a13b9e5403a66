// The ALTCHA web component (strict-CSP build: its stylesheet and its proof-of-work worker are
// separate files from this origin). Loaded on demand by `captcha-session.ts`, so the sign-in
// page's first paint does not wait for it.
import 'altcha/external';
import 'altcha/altcha.css';
import Pbkdf2Worker from 'altcha/workers/pbkdf2?worker';

/** The server's challenges use PBKDF2 (altcha-lib v2); no other algorithm is loaded. */
for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512']) {
  $altcha.algorithms.set(algorithm, () => new Pbkdf2Worker());
}

/** How long to wait for the widget to mount before giving up. */
const MOUNT_TIMEOUT_MS = 10_000;

export interface CaptchaSolver {
  /** Fetches a challenge, solves it in workers and answers the payload the server verifies. */
  solve(): Promise<string | null>;
  dispose(): void;
}

/** An invisible `<altcha-widget>` for the challenge URL, solving one challenge at a time. */
export async function createAltchaSolver(challengeUrl: string): Promise<CaptchaSolver> {
  const widget = document.createElement('altcha-widget');
  widget.setAttribute('challenge', challengeUrl);
  widget.setAttribute('display', 'invisible');
  widget.setAttribute('auto', 'off');
  widget.setAttribute(
    'configuration',
    JSON.stringify({ humanInteractionSignature: false, minDuration: 0, hideFooter: true }),
  );
  const mounted = new Promise<void>((resolve, reject) => {
    const timer = window.setTimeout(() => reject(new Error('The captcha did not load')), MOUNT_TIMEOUT_MS);
    widget.addEventListener(
      'load',
      () => {
        window.clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  document.body.append(widget);
  await mounted;

  let queue: Promise<unknown> = Promise.resolve();
  return {
    solve() {
      const run = queue.then(async () => {
        widget.reset();
        return (await widget.verify())?.payload ?? null;
      });
      queue = run.catch(() => undefined);
      return run;
    },
    dispose() {
      widget.remove();
    },
  };
}
