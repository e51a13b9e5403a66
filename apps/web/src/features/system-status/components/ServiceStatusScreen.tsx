import { Alert, Stack, Table, Text } from '@mantine/core';
import { ENGINE_OF_TOOL } from '@moat/contracts/deployment';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { TableScroll } from '../../../components/ui/TableScroll';
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
        : c.name,
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
        <TableScroll minWidth={640} label={t('systemStatus.components.caption')}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('systemStatus.components.name')}</Table.Th>
                <Table.Th>{t('systemStatus.components.kind')}</Table.Th>
                <Table.Th>{t('systemStatus.components.version')}</Table.Th>
                <Table.Th>{t('systemStatus.components.state')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {components.map((c) => (
                <Table.Tr key={`${c.kind}-${c.name}`}>
                  <Table.Td>{c.name}</Table.Td>
                  <Table.Td>{c.kind}</Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {c.version}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <StateBadge tone={c.status === 'on' ? 'ok' : 'off'}>
                      {t(c.status === 'on' ? 'systemStatus.on' : 'systemStatus.off')}
                    </StateBadge>
                    {c.detail && (
                      <Text size="xs" c="dimmed">
                        {c.detail}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
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
