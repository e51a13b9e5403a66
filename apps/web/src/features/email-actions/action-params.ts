export interface ActionParams {
  type: string;
  /** The page's query parameters except `type`, passed through to the API. */
  query: URLSearchParams;
}

/** The page's parameters when every required one is present and non-empty, else null (SPEC §2.2). */
export function readActionParams(search: URLSearchParams, required: readonly string[]): ActionParams | null {
  if (required.some((name) => !search.get(name)?.trim())) return null;
  const type = search.get('type');
  if (!type) return null;
  const query = new URLSearchParams(search);
  query.delete('type');
  return { type, query };
}

/** The page's query with `extra` set on top (a value of undefined leaves the parameter out). */
export function pageQuery(
  params: ActionParams,
  extra: Record<string, string | undefined> = {},
): URLSearchParams {
  const query = new URLSearchParams(params.query);
  for (const [name, value] of Object.entries(extra)) {
    query.delete(name);
    if (value !== undefined) query.set(name, value);
  }
  return query;
}

/** The message id of a restore page (`msg`); required there, so present once the page runs. */
export function messageIdOf(params: ActionParams): string {
  return params.query.get('msg') ?? '';
}

/** A cache-busting `rnd` value for the restore checks (SPEC §7). */
export function randomRnd(): string {
  return Math.random().toString(36).slice(2, 12);
}
