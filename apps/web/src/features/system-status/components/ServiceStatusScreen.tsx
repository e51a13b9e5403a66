import { Alert, Stack, Text } from '@mantine/core';
import { ENGINE_OF_TOOL } from '@moat/contracts/deployment';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { FitTable } from '../../../components/ui/FitTable';
import { engineText } from '../../../lib/engine-words';
import { formatDateTime } from '../../../lib/format';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useServiceStatus } from '../api/system-status';

/** Each engine by the tool it is, to show the name Security Engines gives it. */
const TOOL_OF_ENGINE: Record<string, string> = Object.fromEntries(
  Object.entries(ENGINE_OF_TOOL).map(([tool, engine]) => [engine, tool]),
);

import { Loading, QueueFigures, Section, StateBadge } from './parts';

/**
 * System Settings → Service Status: open incidents; every component and engine with its state
 * and why one is off; how much mail waits or failed; the relay, with its last error (admins).
 */
export function ServiceStatusScreen() {
  const { t, i18n } = useTranslation();
  const status = useServiceStatus();
  if (status.isPending) return <Loading label={t('systemStatus.loading')} />;
  if (status.isError) return <ApiErrorAlert error={status.error} />;
  const s = status.data;
  const components = [
    ...s.services.map((c) => ({ ...c, kind: t('systemStatus.kinds.service') })),
    ...s.engines.map((c) => ({
      ...c,
      name: TOOL_OF_ENGINE[c.name]
        ? t(`saasAndEngines.tools.${TOOL_OF_ENGINE[c.name]}.name` as TranslationKey)
        : engineText(c.name, t, i18n.language),
      kind: t('systemStatus.kinds.engine'),
    })),
  ];
  return (
    <Stack gap="md">
      <Text size="sm">{t('systemStatus.intro')}</Text>
      <Section id="status-incidents" title={t('systemStatus.incidents.title')}>
        {s.incidents.length === 0 ? (
          <Text size="sm">{t('systemStatus.incidents.none')}</Text>
        ) : (
          s.incidents.map((incident) => (
            <Alert
              key={incident.id}
              color={
                incident.severity === 'error' ? 'red' : incident.severity === 'warning' ? 'yellow' : 'blue'
              }
              variant="light"
              title={incident.title}
            >
              <Text size="sm">
                {t('systemStatus.incidents.since', {
                  date: formatDateTime(incident.started_at, i18n.language),
                })}
              </Text>
            </Alert>
          ))
        )}
      </Section>
      <Section id="status-components" title={t('systemStatus.components.title')}>
        <FitTable
          caption={t('systemStatus.components.caption')}
          rows={components}
          rowKey={(c) => `${c.kind}-${c.name}`}
          columns={[
            { key: 'name', label: t('systemStatus.components.name'), cell: (c) => c.name },
            { key: 'kind', label: t('systemStatus.components.kind'), cell: (c) => c.kind, width: '10rem' },
            {
              key: 'version',
              label: t('systemStatus.components.version'),
              cell: (c) => (
                <Text size="sm" ff="monospace" className="list-text-anywhere">
                  {c.version}
                </Text>
              ),
            },
            {
              key: 'state',
              label: t('systemStatus.components.state'),
              width: '12rem',
              cell: (c) => (
                <>
                  <StateBadge tone={c.status === 'on' ? 'ok' : 'off'}>
                    {t(c.status === 'on' ? 'systemStatus.on' : 'systemStatus.off')}
                  </StateBadge>
                  {c.detail && (
                    <Text size="xs" c="dimmed" className="list-text-anywhere">
                      {c.detail}
                    </Text>
                  )}
                </>
              ),
            },
          ]}
        />
      </Section>
      <Section id="status-queues" title={t('systemStatus.queues.title')}>
        <QueueFigures queues={s.queues} />
      </Section>
      <Section id="status-relay" title={t('systemStatus.relay.title')}>
        <Text size="sm">
          {t(s.relay.configured ? 'systemStatus.relay.configured' : 'systemStatus.relay.notConfigured')}
        </Text>
        {s.relay.last_error && (
          <Alert color="yellow" variant="light" title={t('systemStatus.relay.lastError')}>
            <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
              {s.relay.last_error}
            </Text>
            {s.relay.last_error_at && (
              <Text size="xs" c="dimmed">
                {formatDateTime(s.relay.last_error_at, i18n.language)}
              </Text>
            )}
          </Alert>
        )}
      </Section>
    </Stack>
  );
}
