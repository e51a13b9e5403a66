import { Button, Center, Group, Loader } from '@mantine/core';
import { useDraft } from '../../lib/use-draft';
import { ApiErrorAlert } from './ApiErrorAlert';
import { StatusNotice } from './StatusNotice';

/**
 * A settings form's copy of what the server holds (`useDraft`), with what it would save
 * (`inputOf` the draft) and whether that differs from what is stored.
 */
export function useSettingsForm<S, D extends object, I>(
  stored: S | undefined,
  draftOf: (stored: S) => D,
  inputOf: (draft: D) => I,
) {
  const form = useDraft(stored, draftOf);
  const input = form.draft ? inputOf(form.draft) : null;
  const dirty =
    stored !== undefined &&
    input !== null &&
    JSON.stringify(input) !== JSON.stringify(inputOf(draftOf(stored)));
  return { ...form, input, dirty };
}

/** While a settings screen's data loads: a spinner named for what loads. */
export function SettingsLoading({ label }: { label: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

/**
 * The end of a settings form: the server's refusal, the "saved" notice, Discard (back to what is
 * stored) and Save (a submit button, off until something changed and nothing is refused).
 */
export function SettingsSaveBar({
  error,
  savedText,
  dirty,
  blocked = false,
  pending,
  onDiscard,
  saveLabel,
  discardLabel,
}: {
  error: unknown;
  /** The notice after a save; null or false: none. */
  savedText: string | null | false;
  dirty: boolean;
  blocked?: boolean;
  pending: boolean;
  onDiscard: () => void;
  saveLabel: string;
  discardLabel: string;
}) {
  return (
    <>
      {error ? <ApiErrorAlert error={error} showServerMessage /> : null}
      <StatusNotice message={savedText} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" disabled={!dirty} onClick={onDiscard}>
          {discardLabel}
        </Button>
        <Button type="submit" disabled={!dirty || blocked} loading={pending}>
          {saveLabel}
        </Button>
      </Group>
    </>
  );
}
