import { Select } from '@mantine/core';
import { RETRACTION_VERDICTS, type RetractionVerdict } from '@moat/contracts/retraction';
import { useTranslation } from '../../../lib/i18n';

/** "Hold them as": the verdict retracted copies are held with. */
export function VerdictSelect({
  value,
  onChange,
  w,
}: {
  value: RetractionVerdict;
  onChange: (verdict: RetractionVerdict) => void;
  w?: number;
}) {
  const { t } = useTranslation();
  return (
    <Select
      label={t('retraction.screen.verdict')}
      data={RETRACTION_VERDICTS.map((v) => ({ value: v, label: t(`retraction.verdict.${v}`) }))}
      value={value}
      allowDeselect={false}
      onChange={(v) => onChange((v ?? 'phishing') as RetractionVerdict)}
      w={w}
    />
  );
}
