import { Alert, Badge, Button, Code, Group, NativeSelect, Stack, Text } from '@mantine/core';
import type {
  DnsCheck,
  DnsCheckStatus,
  OnboardingChecklist,
  OnboardingState,
} from '@moat/contracts/onboarding';
import { useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useCheckDns } from '../api/onboarding';

/** Each status's colour (the panel) and its badge's, dark enough for its text in both themes. */
const STATUS: Record<DnsCheckStatus, { color: string; badge: string; key: TranslationKey }> = {
  ok: { color: 'green', badge: '#237032', key: 'onboarding.dns.status.ok' },
  warning: { color: 'yellow', badge: 'yellow.5', key: 'onboarding.dns.status.warning' },
  missing: { color: 'red', badge: 'red.9', key: 'onboarding.dns.status.missing' },
  error: { color: 'gray', badge: 'gray.7', key: 'onboarding.dns.status.error' },
};

const KIND: Record<DnsCheck['checks'][number]['kind'], string> = { mx: 'MX', spf: 'SPF', dmarc: 'DMARC' };

/**
 * One domain's MX, SPF and DMARC records, record by record: right, to change, missing, or not
 * checked when the lookup failed — as the checklist found them, or looked up again on demand.
 */
export function DnsCheckPanel({
  state,
  checklist,
}: {
  state: OnboardingState;
  checklist: OnboardingChecklist | null;
}) {
  const { t } = useTranslation();
  const check = useCheckDns();
  const [domain, setDomain] = useState(state.domains[0] ?? '');
  const result =
    check.data && check.data.domain === domain
      ? check.data
      : (checklist?.checks.find((c) => c.domain === domain) ?? null);
  return (
    <Stack gap="sm">
      {state.mx_host_usable ? (
        <Text size="sm">{t('onboarding.dns.intro', { host: state.mx_host })}</Text>
      ) : (
        <Alert
          variant="light"
          color="yellow"
          title={
            // The light yellow's own title colour is too pale to read on its background.
            <Text component="span" fw={700} c="var(--mantine-color-text)">
              {t('onboarding.dns.gatewayNameTitle')}
            </Text>
          }
        >
          {t('onboarding.dns.gatewayName', { host: state.mx_host })}
        </Alert>
      )}
      <Group align="flex-end" gap="xs" wrap="wrap">
        <NativeSelect
          label={t('onboarding.dns.domain')}
          data={state.domains}
          value={domain}
          onChange={(e) => setDomain(e.currentTarget.value)}
          style={{ flex: '1 1 14rem' }}
        />
        <Button onClick={() => check.mutate(domain)} loading={check.isPending} disabled={!domain}>
          {t('onboarding.dns.check')}
        </Button>
      </Group>
      {check.isError && <ApiErrorAlert error={check.error} showServerMessage />}
      {result && (
        <Stack gap="sm" aria-live="polite">
          {result.checks.map((c) => (
            <Alert
              key={c.kind}
              variant="light"
              color={STATUS[c.status].color}
              title={
                <Group gap="xs">
                  <Text component="span" fw={700} c="var(--mantine-color-text)">
                    {KIND[c.kind]}
                  </Text>
                  <Badge color={STATUS[c.status].badge} variant="filled" size="sm" autoContrast>
                    {t(STATUS[c.status].key)}
                  </Badge>
                </Group>
              }
            >
              <Stack gap={6}>
                <Text size="sm">{c.advice}</Text>
                {c.found.length > 0 && (
                  <div>
                    <Text size="xs" c="dimmed">
                      {t('onboarding.dns.found')}
                    </Text>
                    <Code block className="dns-record">
                      {c.found.join('\n')}
                    </Code>
                  </div>
                )}
                {c.suggested && (
                  <div>
                    <Text size="xs" c="dimmed">
                      {t('onboarding.dns.publish')}
                    </Text>
                    <Code block className="dns-record">
                      {c.suggested}
                    </Code>
                  </div>
                )}
              </Stack>
            </Alert>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
