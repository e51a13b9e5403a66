import { runCli, startMoat, templateDataDir } from './server.ts';

/** One server for the browser tests, started as `npm start` starts it. */
export default async function globalSetup() {
  const moat = await startMoat({
    dataDir: await templateDataDir(),
    env: { ADMIN_EMAIL: 'admin@e2e.test', ADMIN_PASSWORD: 'e2e-admin-password' },
  });
  // Its admin signs in to the dashboard: the organisation has been set up (onboarding.spec.ts goes through it).
  const onboarded = await runCli(['tenant:update', '--tenant', 'e2e.test', '--onboarded', 'on'], {
    DATA_DIR: moat.dataDir,
  });
  if (onboarded.code !== 0) throw new Error(`tenant:update --onboarded failed: ${onboarded.stderr}`);
  process.env.MOAT_E2E_URL = moat.url;
  process.env.MOAT_E2E_DATA_DIR = moat.dataDir;
  return async () => {
    await moat.stop();
  };
}
