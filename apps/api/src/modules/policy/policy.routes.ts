import { errorResponseSchema } from '@moat/contracts/errors';
import { POLICY_API, policyInputSchema, policySchema, whatIfSchema } from '@moat/contracts/policy';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';

/**
 * The Policy screen (issue 11): every signed-in console user sees the policy (SPEC §6: admin and
 * user, view_policy); admins and users given view_edit_policy change it.
 */
export const policyRoutes: FastifyPluginAsyncZod = async (app) => {
  const errors = { 400: errorResponseSchema, 403: errorResponseSchema };
  const who = (request: Parameters<typeof signedIn>[0]) => {
    const { user } = signedIn(request);
    return { tenantId: user.tenantId, role: user.role, viewEditPolicy: user.viewEditPolicy };
  };

  app.get(
    POLICY_API.policy,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['policy'],
        summary:
          "The tenant's mail policy: action, restore mode and identification per verdict, digest, banner, overrides",
        response: { 200: policySchema, ...errors },
      },
    },
    async (request) => app.services.policy.get(who(request)),
  );

  app.put(
    POLICY_API.policy,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['policy'],
        summary: 'Save the whole policy (admins and view_edit_policy users); audited, in effect at once',
        body: policyInputSchema,
        response: { 200: policySchema, ...errors },
      },
    },
    async (request) => app.services.policy.save(who(request), userActorOf(request), request.body),
  );

  app.post(
    POLICY_API.whatIf,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['policy'],
        summary: "How the last 7 days' messages would have been handled under a proposed policy",
        body: policyInputSchema,
        response: { 200: whatIfSchema, ...errors },
      },
    },
    async (request) => app.services.policy.whatIf(who(request), request.body),
  );
};
