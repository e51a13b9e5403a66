import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { runCommand } from '../../cli/commands.ts';
import { AppError } from '../../errors.ts';
import { isDirectLocalCaller } from '../../lib/local-caller.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { safeEqual } from '../../lib/tokens.ts';

export const CLI_BRIDGE_PATH = '/internal/cli';

/**
 * The CLI's way in while this server owns the embedded database: loopback connections only,
 * with the secret from DATA_DIR/control.json. Not part of the public API.
 */
export const cliBridgeRoutes: FastifyPluginAsyncZod<{ token: string; serverKey: ServerKey }> = async (
  app,
  opts,
) => {
  app.post(
    CLI_BRIDGE_PATH,
    {
      schema: {
        hide: true,
        body: z.object({
          argv: z.array(z.string().max(10_000)).max(100),
          cwd: z.string().max(4096),
          stdin: z.string().max(100_000).optional(),
        }),
        response: { 200: z.object({ exitCode: z.number().int(), stdout: z.string(), stderr: z.string() }) },
      },
    },
    async (request) => {
      const auth = request.headers.authorization ?? '';
      // A request relayed by a proxy on this host comes from loopback too: refused (local-caller.ts).
      if (!isDirectLocalCaller(request) || !safeEqual(auth, `Bearer ${opts.token}`)) {
        throw new AppError('forbidden', 'The CLI bridge accepts only local callers with the control secret');
      }
      const { argv, cwd, stdin } = request.body;
      request.log.info({ command: argv[0] }, 'cli command through the server');
      return runCommand(argv, {
        db: app.database.db,
        config: app.config,
        serverKey: opts.serverKey,
        clock: app.clock,
        cwd,
        stdin,
        mailer: app.services.mailer,
      });
    },
  );
};
