/**
 * A module loaded the first time it is needed, not when the server starts: the mail stack
 * (mailauth, mailparser, mailsplit) costs about half a CPU second to load, which a start that
 * answers `/healthz` and the sign-in page need not pay (issue 14).
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
