/**
 * A module loaded the first time it is needed, not when the server starts: the mail stack
 * (mailauth, mailparser, mailsplit) costs about half a CPU second to load, which a start that
 * answers `/healthz` and the sign-in page need not pay (issue 14).
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    // A failed load (out of file handles, say) is tried again next time, not remembered.
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}
