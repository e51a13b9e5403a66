import fs from 'node:fs';
import path from 'node:path';
import { API } from '@moat/contracts/api-paths';
import type { FastifyInstance } from 'fastify';
import { markdownPage } from './markdown.ts';

/** The repository's docs/user-guide.md, found from wherever the server runs (sources or build). */
function findGuide(): string | null {
  let dir = import.meta.dirname;
  for (let depth = 0; depth < 8; depth += 1) {
    const candidate = path.join(dir, 'docs', 'user-guide.md');
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/**
 * Help → Documentation: the user guide (docs/user-guide.md) as a page of its own at a stable
 * address, readable without signing in and without the console's scripts.
 */
export async function helpRoutes(app: FastifyInstance) {
  const file = findGuide();
  const html = file ? markdownPage(fs.readFileSync(file, 'utf8')) : null;
  const handler = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    if (!html)
      return reply.code(404).type('text/plain; charset=utf-8').send('The user guide is not installed');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'")
      .send(html);
  };
  app.get(API.userGuide, { schema: { hide: true } }, handler);
  app.get(`${API.userGuide}/`, { schema: { hide: true } }, handler);
}
