import { useEffect, useState } from 'react';

/**
 * A settings form's unsaved copy of what the server holds: made from the server's answer once it
 * arrives, changed field by field, and made again from what the server stored after a save
 * (`savedAs`), which also shows the "saved" notice until the next change; `discard` goes back to
 * what the server holds.
 */
export function useDraft<S, D extends object>(stored: S | undefined, draftOf: (stored: S) => D) {
  const [draft, setDraft] = useState<D | null>(null);
  const [justSaved, setJustSaved] = useState(false);

  useEffect(() => {
    if (stored !== undefined && draft === null) setDraft(draftOf(stored));
  }, [stored, draft, draftOf]);

  const set = <K extends keyof D>(key: K, value: D[K]) => {
    setJustSaved(false);
    setDraft((current) => (current ? { ...current, [key]: value } : current));
  };
  const savedAs = (next: S) => {
    setDraft(draftOf(next));
    setJustSaved(true);
  };
  const discard = (current: S) => setDraft(draftOf(current));
  return { draft, set, justSaved, savedAs, discard };
}
