import { type ActionNameBody, PUBLIC_ACTION_API, type PublicActionName } from '@moat/contracts/quarantine';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';
import type { ActionParams } from '../action-params';

/**
 * What the page reads of the answer: any truthy `status` means the recipient must verify (SPEC §7),
 * so it is read leniently rather than against the API's boolean schema.
 */
export interface IdentificationNeededResponse {
  status: unknown;
}

const identificationResponse = {
  parse(value: unknown): IdentificationNeededResponse {
    if (typeof value === 'object' && value !== null && 'status' in value) return { status: value.status };
    throw new TypeError('identification_needed answer without status');
  },
};

/**
 * POST /api/v1/{type}/identification_needed: asks whether the recipient must prove who they are
 * (a truthy status) before the action runs. Checks only; it changes nothing on the server.
 */
export function checkIdentificationNeeded(
  params: ActionParams,
  actionName: PublicActionName,
  signal?: AbortSignal,
): Promise<IdentificationNeededResponse> {
  const body: ActionNameBody = { action_name: actionName };
  return apiPost(PUBLIC_ACTION_API.identificationNeeded(params.type), body, {
    query: params.query,
    signal,
    schema: identificationResponse,
  });
}

export function identificationNeededQueryOptions(params: ActionParams, actionName: PublicActionName) {
  return queryOptions({
    queryKey: queryKeys.identificationNeeded(params.type, actionName, params.query.toString()),
    queryFn: ({ signal }) => checkIdentificationNeeded(params, actionName, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useIdentificationNeeded(params: ActionParams, actionName: PublicActionName, enabled = true) {
  return useQuery({ ...identificationNeededQueryOptions(params, actionName), enabled });
}
