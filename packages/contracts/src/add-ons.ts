import { z } from 'zod/mini';
import { fillPath } from './api-paths.ts';
import { AVAILABLE_SECURITY_TOOLS, type SecurityTool } from './deployment.ts';
import { wordingSchema } from './wording.ts';

/**
 * The Add-ons Store (admins): each add-on the navigation sells, whether this edition ships it,
 * whether it is on for the tenant, and the way to get it: turned on here when this edition has
 * its module, else a request to the provider (as the licence banner's "Contact us").
 */
export const ADD_ONS_ROUTES = {
  list: '/api/v1/add_ons',
  activate: '/api/v1/add_ons/:id/activate',
  request: '/api/v1/add_ons/:id/request',
} as const;
export const ADD_ONS_API = {
  list: ADD_ONS_ROUTES.list,
  activate: (id: AddOnId) => fillPath(ADD_ONS_ROUTES.activate, { id }),
  request: (id: AddOnId) => fillPath(ADD_ONS_ROUTES.request, { id }),
} as const;

export const ADD_ON_IDS = ['dmarc', 'iraas', 'sspm', 'archiving', 'phishing_training'] as const;
export type AddOnId = (typeof ADD_ON_IDS)[number];

/**
 * The security tool that is each add-on's module, when it has one: IRaaS (incident response as
 * a service) is people at the provider, not a module.
 */
export const ADD_ON_TOOL: Record<AddOnId, SecurityTool | null> = {
  dmarc: 'dmarc',
  iraas: null,
  sspm: 'sspm',
  archiving: 'archiving',
  phishing_training: 'phishing_training',
};

/**
 * The add-ons this edition has built in, on for every organisation: DMARC (issue 37) reads the
 * reports sent to each domain's report address with nothing to turn on.
 */
export const BUILT_IN_ADD_ONS: readonly AddOnId[] = ['dmarc'];

/** Whether this edition ships the add-on's module (it can then be turned on here, or is built in). */
export const addOnInEdition = (
  id: AddOnId,
  available: readonly SecurityTool[] = AVAILABLE_SECURITY_TOOLS,
): boolean => {
  const tool = ADD_ON_TOOL[id];
  return BUILT_IN_ADD_ONS.includes(id) || (tool !== null && available.includes(tool));
};

export const ADD_ON_MESSAGE_MAX = 500;

export const addOnIdParamsSchema = z.object({ id: z.enum(ADD_ON_IDS) });

export const addOnSchema = z.object({
  id: z.enum(ADD_ON_IDS),
  /** This edition has the add-on's module: an admin turns it on here. */
  in_edition: z.boolean(),
  /** On for the tenant (always false for an add-on this edition does not ship). */
  active: z.boolean(),
  /** The tenant's latest request to the provider, if any. */
  last_request: z.nullable(z.object({ at: z.string(), by: z.string() })),
});
export type AddOn = z.infer<typeof addOnSchema>;

export const addOnsSchema = z
  .object({
    items: z.array(addOnSchema),
    /** A request reaches the provider by mail (the deployment has a support address). */
    provider_reachable: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'AddOns' });
export type AddOns = z.infer<typeof addOnsSchema>;

/** POST /api/v1/add_ons/{id}/request: an optional note for the provider, plain words. */
export const addOnRequestBodySchema = z.strictObject({
  message: z._default(wordingSchema(ADD_ON_MESSAGE_MAX), ''),
});
export type AddOnRequestBody = z.input<typeof addOnRequestBodySchema>;
