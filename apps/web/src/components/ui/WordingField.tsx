import { Textarea, TextInput } from '@mantine/core';
import { type WordingProblem, wordingProblem } from '@moat/contracts/wording';
import type { TFunction } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';

/** The words of a wording problem (contracts' `wordingProblem`, also the API's field errors). */
export function wordingMessage(
  t: TFunction,
  problem: WordingProblem,
  max: number,
  placeholders: readonly string[] = [],
): string {
  switch (problem) {
    case 'wording_too_long':
      return t('wording.wording_too_long', { max });
    case 'wording_markup':
      return t('wording.wording_markup');
    case 'wording_link':
      return t('wording.wording_link');
    case 'wording_placeholder':
      return placeholders.length > 0
        ? t('wording.wording_placeholder', { placeholders: placeholders.map((p) => `{${p}}`).join(', ') })
        : t('wording.wording_no_placeholder');
  }
}

/** The problem of a draft text as the API would find it (trimmed first, as the API does). */
export const draftWordingProblem = (text: string, max: number, placeholders: readonly string[] = []) =>
  wordingProblem(text.trim(), max, placeholders);

/**
 * A text an organisation writes into Moat's mail: plain words, checked as they are typed with the
 * API's own rule, its problem said under the field. One line (`TextInput`) or a few (`Textarea`,
 * whose line breaks become spaces: the text is one paragraph).
 */
export function WordingField({
  label,
  description,
  value,
  onChange,
  max,
  placeholders = [],
  placeholder,
  multiline = false,
  disabled,
}: {
  label: string;
  description?: string;
  value: string;
  onChange: (value: string) => void;
  max: number;
  placeholders?: readonly string[];
  placeholder?: string;
  multiline?: boolean;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const problem = draftWordingProblem(value, max, placeholders);
  const common = {
    label,
    description,
    value,
    placeholder,
    disabled,
    maxLength: max,
    error: problem ? wordingMessage(t, problem, max, placeholders) : undefined,
  };
  return multiline ? (
    <Textarea
      {...common}
      rows={3}
      onChange={(event) => onChange(event.currentTarget.value.replace(/[\r\n]+/g, ' '))}
    />
  ) : (
    <TextInput {...common} onChange={(event) => onChange(event.currentTarget.value)} />
  );
}
