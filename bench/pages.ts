/**
 * Page weight and Lighthouse (issue 14), the way a recipient on a phone and a user signing in meet
 * Moat: started as `npm start` starts it, with the built web app, on an embedded database holding
 * one quarantined message.
 * - weight: the JavaScript and CSS Chromium loads until the network is idle, gzip (each file
 *   compressed here at level 9) and as sent (the bytes on the wire, Brotli or gzip as the server
 *   chose), for the public restore and action pages, the login page and the signed-in dashboard;
 * - Lighthouse 12 (npm `lighthouse`, Debian's Chromium), mobile preset, performance and
 *   accessibility, on the public restore page and the login page; the median of RUNS runs each,
 *   the two pages taking turns.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { openPglite } from '../apps/api/src/db/client.ts';
import { type PageWeight, weighInFreshContext } from '../e2e/support/page-weight.ts';
import { startProcess } from './api.ts';
import { CHROMIUM, CHROMIUM_ARGS, freePort, median, productionEnv, seededApp } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Weight extends PageWeight {
  page: string;
}

async function weigh(
  base: string,
  pages: Array<{ page: string; path: string; ready: RegExp; cookie?: string }>,
): Promise<Weight[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const weights: Weight[] = [];
  try {
    for (const { page: name, path: at, ready, cookie } of pages) {
      const cookies = cookie ? [{ name: SESSION_COOKIE, value: cookie, url: base }] : [];
      weights.push({ page: name, ...(await weighInFreshContext(browser, `${base}${at}`, ready, cookies)) });
    }
  } finally {
    await browser.close();
  }
  return weights;
}

async function lighthouseScores(url: string): Promise<{ performance: number; accessibility: number }> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
    });
    const categories = result?.lhr.categories;
    return {
      performance: Math.round((categories?.performance?.score ?? 0) * 100),
      accessibility: Math.round((categories?.accessibility?.score ?? 0) * 100),
    };
  } finally {
    chrome.kill();
  }
}

export async function benchPages() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-pages-'));
  const database = await openPglite(path.join(dataDir, 'pgdata'));
  const { app, links, token } = await seededApp(database, dataDir, 1);
  // Past the first-run wizard, so the session lands on the dashboard.
  await database.db.execute('update tenants set onboarded_at = now()' as never);
  await app.close();
  await database.close();
  const port = await freePort();
  const moat = await startProcess(
    ['scripts/start.mjs'],
    await productionEnv({ port, dataDir, secretKey: crypto.randomBytes(32).toString('base64') }),
    port,
  );
  const base = `http://127.0.0.1:${port}`;
  // The links a notification carries (the action page with an id the API does not know: it loads
  // and says so, which is all its weight needs).
  const restore = `/#/email-actions/restore-email?type=office365_emails&msg=${links[0]}&mode=automatic`;
  const action = '/#/email-actions/action?type=quarantine&id=bench-unknown';
  try {
    const weights = await weigh(base, [
      { page: 'public restore page', path: restore, ready: /verification code/i },
      { page: 'public action page', path: action, ready: /can't check the identification/i },
      { page: 'login page', path: '/#/auth/login', ready: /sign in|log in/i },
      { page: 'signed-in dashboard', path: '/#/dashboard', ready: /in quarantine now/i, cookie: token },
    ]);
    // Interleaved (restore, login, restore, …): a busy spell of the machine weighs on both pages.
    const audited = [
      ['public restore page', restore],
      ['login page', '/#/auth/login'],
    ] as const;
    const runs = new Map<string, Array<{ performance: number; accessibility: number }>>(
      audited.map(([name]) => [name, []]),
    );
    for (let i = 0; i < RUNS; i++) {
      for (const [name, at] of audited) runs.get(name)?.push(await lighthouseScores(`${base}${at}`));
    }
    const scores: Record<string, { performance: number; accessibility: number; runs: unknown[] }> = {};
    for (const [name, of] of runs) {
      scores[name] = {
        performance: median(of.map((r) => r.performance)),
        accessibility: median(of.map((r) => r.accessibility)),
        runs: of,
      };
    }
    const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
    console.log('| page | JS+CSS files | gzip | as sent | Lighthouse performance | accessibility |');
    console.log('|---|---|---|---|---|---|');
    for (const w of weights) {
      const s = scores[w.page];
      console.log(
        `| ${w.page} | ${w.files} | ${kb(w.gzipBytes)} | ${kb(w.sentBytes)} (${(w.sentBytes / w.gzipBytes).toFixed(2)}×) | ${s?.performance ?? '–'} | ${s?.accessibility ?? '–'} |`,
      );
    }
    // Where the signed-in dashboard's weight is (its budget is the hardest to keep).
    const dashboard = weights.find((w) => w.page === 'signed-in dashboard');
    console.log("\nThe signed-in dashboard's largest files (gzip):");
    for (const file of dashboard?.byFile.slice(0, 15) ?? [])
      console.log(`  ${kb(file.gzipBytes)}  ${file.name}`);
    return {
      weights: weights.map(({ byFile: _files, ...weight }) => weight),
      dashboardLargestFiles: dashboard?.byFile.slice(0, 15) ?? [],
      lighthouse: scores,
    };
  } finally {
    await moat.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
