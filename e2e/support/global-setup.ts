import { startMoat } from './server.ts';

/** One server for the browser tests, started as `npm start` starts it. */
export default async function globalSetup() {
  const moat = await startMoat({
    env: { ADMIN_EMAIL: 'admin@e2e.test', ADMIN_PASSWORD: 'e2e-admin-password' },
  });
  process.env.MOAT_E2E_URL = moat.url;
  process.env.MOAT_E2E_DATA_DIR = moat.dataDir;
  return async () => {
    await moat.stop();
  };
}
