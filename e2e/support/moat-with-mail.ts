import { execFile } from 'node:child_process';
import { runCli, startMoat, templateDataDir } from './server.ts';
import { startSmtpSink } from './smtp-sink.ts';

/**
 * Moat started as `npm start` starts it, relaying its mail to a local SMTP sink, with a first
 * admin admin@acme.test and a quick captcha; `cli` runs commands on its DATA_DIR.
 */
export async function startMoatWithMail(extraEnv: Record<string, string> = {}) {
  const sink = await startSmtpSink();
  const dataDir = await templateDataDir();
  const moat = await startMoat({
    dataDir,
    env: {
      SMTP_RELAY_URL: sink.url,
      ADMIN_EMAIL: 'admin@acme.test',
      ADMIN_PASSWORD: 'admin-password-1',
      CAPTCHA_DIFFICULTY: '300',
      ...extraEnv,
    },
  });
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  // Its admin signs in to the dashboard: the organisation has been set up (onboarding.spec.ts goes through it).
  const onboarded = await cli('tenant:update', '--tenant', 'acme.test', '--onboarded', 'on');
  if (onboarded.code !== 0) throw new Error(`tenant:update --onboarded failed: ${onboarded.stderr}`);
  /** Debian's swaks sending to this gateway (HELO client.test): its exit code and transcript. */
  const swaks = (args: string[]): Promise<{ code: number; out: string }> =>
    new Promise((resolve) => {
      execFile(
        'swaks',
        ['--server', `127.0.0.1:${moat.smtpPort}`, '--helo', 'client.test', ...args],
        (error, stdout, stderr) => {
          resolve({
            code: error ? Number((error as { code?: number }).code ?? 1) : 0,
            out: `${stdout}${stderr}`,
          });
        },
      );
    });
  return {
    sink,
    moat,
    cli,
    swaks,
    async stop() {
      await moat.stop();
      await sink.close();
    },
  };
}
export type MoatWithMail = Awaited<ReturnType<typeof startMoatWithMail>>;
