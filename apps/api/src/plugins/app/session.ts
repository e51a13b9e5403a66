import { API } from '@moat/contracts/api-paths';
import { AUTH_API, PASSWORD_CHANGE_REQUIRED_MESSAGE } from '@moat/contracts/auth-paths';
import { SESSION_ID_HEADER } from '@moat/contracts/constants';
import { NOT_AUTHENTICATED_MESSAGE, SESSION_COOKIE } from '@moat/contracts/current-user';
import { GLOBAL_ERROR_TEXT } from '@moat/contracts/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { SessionRow } from '../../modules/sessions/sessions.repo.ts';
import type { UserRow } from '../../modules/users/users.repo.ts';

/** Idle timeout (DESIGN §4): a session unused this long is over. */
/** A tenant's default idle limit; its own (Settings, 5–480 minutes) is read with the session. */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** Only touch last_seen_at this often, to keep reads cheap. */
const TOUCH_INTERVAL_MS = 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    session: SessionRow | null;
    user: UserRow | null;
  }
  interface FastifyInstance {
    /** preHandler: a live session, its login reason given (SPEC §4 "Maintenance rule"). */
    requireUser: (request: FastifyRequest) => Promise<void>;
    /** preHandler: a live session, even one still owing its login reason. */
    requireSession: (request: FastifyRequest) => Promise<void>;
    /** preHandler: requireUser, and the user is an admin (SPEC §8 'Insufficient privileges'). */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
    /**
     * preHandler of the admin pages' reads: an admin, or anyone of a demo deployment (SPEC §6:
     * "Admin (or demo customer)"), who may look but not change.
     */
    requireAdminOrDemo: (request: FastifyRequest) => Promise<void>;
    /** Every route with who may call it (its guard), in the order they were registered. */
    routeAccess: RouteAccess[];
  }
}

/** Who may call a route, by its guard: anyone, any session, a signed-in user, an admin (or demo). */
export type Access = 'public' | 'session' | 'user' | 'admin_or_demo' | 'admin';
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
}

export interface SignedIn {
  session: SessionRow;
  user: UserRow;
}

/** The session and user of a request that passed requireUser or requireSession. */
export function signedIn(request: FastifyRequest): SignedIn {
  if (!request.session || !request.user) throw new AppError('forbidden', NOT_AUTHENTICATED_MESSAGE);
  return { session: request.session, user: request.user };
}

/**
 * What a session whose user must replace a one-time password may call: that, signing out, and
 * whether it is a session. Every other route that acts as the user answers 403
 * password_change_required; routes open to anyone answer as to someone signed out.
 */
const PASSWORD_CHANGE_ROUTES = new Set([
  `POST ${AUTH_API.passwordChange}`,
  `POST ${AUTH_API.logout}`,
  `GET ${AUTH_API.session}`,
]);
/** Routes open to anyone that answer about the signed-in user: refused too while the password is due. */
const READS_THE_USER = new Set([`GET ${API.currentUser}`, `POST ${AUTH_API.logoutReason}`]);

/**
 * Reads the session cookie on every request: a live session (not revoked, within its idle and
 * absolute timeouts) sets `request.session` and `request.user`. The non-secret numeric session
 * id goes out in a response header on every answer, errors included.
 */
export const sessionPlugin = fp(async (app: FastifyInstance) => {
  const sessions = app.services.sessions;
  app.decorateRequest('session', null);
  app.decorateRequest('user', null);
  app.decorate('requireSession', async (request: FastifyRequest) => {
    signedIn(request);
  });
  const requireUser = async (request: FastifyRequest) => {
    const { session, user } = signedIn(request);
    // A locked account (SPEC §4 "Locked account") reads only who it is; the console is closed to it.
    if (user.locked) throw new AppError('forbidden', 'This account is locked');
    if (session.loginReasonRequired) {
      throw new AppError('login_reason_required', 'Give the reason for this sign-in first');
    }
  };
  app.decorate('requireUser', requireUser);
  // Who is signed in is answered first (not signed in, locked, owing a reason), then the role.
  const refuse = () => new AppError('insufficient_privileges', GLOBAL_ERROR_TEXT.insufficientPrivileges);
  app.decorate('requireAdmin', async (request: FastifyRequest) => {
    await requireUser(request);
    if (signedIn(request).user.role !== 'admin') throw refuse();
  });
  app.decorate('requireAdminOrDemo', async (request: FastifyRequest) => {
    await requireUser(request);
    const { user } = signedIn(request);
    if (user.role === 'admin') return;
    const tenant = await app.services.deployment.tenant(user.tenantId);
    if (tenant.deploymentMode !== 'demo') throw refuse();
  });

  // Each route's guard is recorded (the access table, tested route by route) and runs first, as
  // an onRequest hook of the route: someone not allowed learns nothing of the route's input
  // rules (a 403, never a 400 about the body).
  const guards = new Map<unknown, Access>([
    [app.requireSession, 'session'],
    [app.requireUser, 'user'],
    [app.requireAdminOrDemo, 'admin_or_demo'],
    [app.requireAdmin, 'admin'],
  ]);
  app.decorate('routeAccess', [] as RouteAccess[]);
  let accessByRoute: Map<string, Access> | null = null;
  const routeAccessOf = (route: string) => {
    accessByRoute ??= new Map(app.routeAccess.map((r) => [`${r.method} ${r.url}`, r.access]));
    return accessByRoute.get(route);
  };
  app.addHook('onRoute', (route) => {
    const handlers = [route.preHandler ?? []].flat();
    const guard = handlers.find((handler) => guards.has(handler));
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      app.routeAccess.push({ method, url: route.url, access: guard ? guards.get(guard)! : 'public' });
    }
    if (!guard) return;
    route.preHandler = handlers.filter((handler) => handler !== guard);
    route.onRequest = [...[route.onRequest ?? []].flat(), guard as never];
  });

  app.addHook('onRequest', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return;
    const now = app.clock.now();
    const found = await sessions.findLive(hashToken(token), now);
    if (!found) return;
    const idleFor = now.getTime() - found.session.lastSeenAt.getTime();
    // The tenant's limits (Settings), read with the session: a change ends sessions at once.
    const idleLimit = (found.idleMinutes ?? SESSION_IDLE_TIMEOUT_MS / 60_000) * 60_000;
    const age = now.getTime() - found.session.createdAt.getTime();
    const tooOld = age > (found.absoluteHours ?? 12) * 3_600_000;
    if (idleFor > idleLimit || tooOld || found.user.status !== 'active') {
      await sessions.end(found, now);
      return;
    }
    if (found.user.mustChangePassword) {
      const route = `${request.method === 'HEAD' ? 'GET' : request.method} ${request.routeOptions.url}`;
      if (!PASSWORD_CHANGE_ROUTES.has(route)) {
        const access = routeAccessOf(route) ?? 'public';
        if (access === 'public' && !READS_THE_USER.has(route)) return;
        throw new AppError('password_change_required', PASSWORD_CHANGE_REQUIRED_MESSAGE);
      }
    }
    if (idleFor > TOUCH_INTERVAL_MS) await sessions.touch(found, now);
    request.session = found.session;
    // A portal the provider locked (portalLicenseState 'locked') locks every account of it.
    // An admin of an organisation that has not finished onboarding is led there first (SPEC §2.5).
    const onBoardingRequired =
      found.user.onBoardingRequired || (found.user.role === 'admin' && found.onboardingPending);
    request.user = { ...found.user, locked: found.user.locked || found.tenantLocked, onBoardingRequired };
    reply.header(SESSION_ID_HEADER, String(found.session.id));
  });
});

/** The signed-in user's tenant, and the user as the audit log names them. */
export function tenantActorOf(request: FastifyRequest) {
  const { user } = signedIn(request);
  return {
    tenantId: user.tenantId,
    actor: { type: 'user' as const, userId: user.id, email: user.email, ip: request.ip } satisfies Actor,
  };
}

/** The signed-in user of a request as the audit log names them. */
export function userActorOf(request: FastifyRequest): Actor {
  return tenantActorOf(request).actor;
}
