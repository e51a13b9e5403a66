import fs from 'node:fs';
import path from 'node:path';
import { closeAttachmentLures } from '../apps/api/src/engines/lures/index.ts';
import { benchApi } from './api.ts';
import { benchClickTime } from './click-time.ts';
import { benchCluster } from './cluster.ts';
import { benchDetection } from './detection.ts';
import { benchDlp } from './dlp.ts';
import { benchDmarc } from './dmarc.ts';
import { benchEventLoop } from './event-loop.ts';
import { benchGateway } from './gateway.ts';
import { benchLearning } from './learning.ts';
import { benchLogin } from './login.ts';
import { benchOutbound } from './outbound.ts';
import { benchPages } from './pages.ts';
import { benchRetraction } from './retraction.ts';
import { benchSearch } from './search.ts';
import { benchStartup } from './startup.ts';

const only = process.argv[2];
const results: Record<string, unknown> = {};
if (!only || only === 'api') results.api = await benchApi();
if (!only || only === 'event-loop') results.eventLoop = await benchEventLoop();
if (!only || only === 'startup') results.startup = await benchStartup();
if (!only || only === 'login') results.login = await benchLogin();
if (!only || only === 'pages') results.pages = await benchPages();
if (!only || only === 'search') results.search = await benchSearch();
if (!only || only === 'gateway') results.gateway = await benchGateway();
if (!only || only === 'outbound') results.outbound = await benchOutbound();
if (!only || only === 'dlp') results.dlp = await benchDlp();
if (!only || only === 'cluster') results.cluster = await benchCluster();
if (!only || only === 'click-time') results.clickTime = await benchClickTime();
if (!only || only === 'detection') results.detection = await benchDetection();
if (!only || only === 'learning') results.learning = await benchLearning();
if (!only || only === 'retraction') results.retraction = await benchRetraction();
if (!only || only === 'dmarc') results.dmarc = await benchDmarc();
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(import.meta.dirname, 'results', `${only ?? 'all'}.json`),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...results }, null, 2)}\n`,
);
// The anti-phishing engine's attachment-lure worker (detection) would keep the process running.
await closeAttachmentLures();
