import { ROUTES } from './routes.ts';

/**
 * Route patterns of the web's router table that carry parameters or wildcards (SPEC §2), next to
 * the concrete paths of `routes.ts`. Added by the web; paths here match `ROUTES`.
 */
export const ROUTE_PATTERNS = {
  passwordExpired: '/auth/password-expired/:email',
  forbiddenWithRest: '/error/403/*',
  policyEdit: '/policy/edit/:id',
  v1Feature: '/v1/:feature',
  v1Subfeature: '/v1/:feature/:subfeature',
  v1SubfeatureId: '/v1/:feature/:subfeature/:id',
  notFound: '*',
} as const;

/** `/v1/{feature}[/{subfeature}[/{id}]]`, each segment URL-encoded. */
export function v1Path(feature: string, subfeature?: string, id?: string): string {
  return ['/v1', feature, subfeature, id]
    .filter((segment): segment is string => segment !== undefined)
    .map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment)))
    .join('/');
}

/** Where `/policy/edit/{id}` goes (SPEC §2.4). */
export function v1PolicyEditPath(id: string): string {
  return v1Path('policy', 'edit', id);
}

/** Screens of the User Interaction area (SPEC §2.4 side navigation) that the web builds. */
export const USER_INTERACTION_ROUTES = {
  restoreRequests: `${ROUTES.userInteraction}/restore-request-and-clean-attachments`,
  quarantineItems: `${ROUTES.userInteraction}/quarantine-item`,
} as const;
