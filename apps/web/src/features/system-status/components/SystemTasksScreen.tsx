import { Stack, Table, Text } from '@mantine/core';
import type { SystemTask } from '@moat/contracts/console';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { TableScroll } from '../../../components/ui/TableScroll';
import { formatDateTime } from '../../../lib/format';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useSystemTasks } from '../api/system-status';
import { Loading, QueueFigures, Section, StateBadge } from './parts';

function TaskState({ task }: { task: SystemTask }) {
  const { t } = useTranslation();
  if (task.running) return <StateBadge tone="busy">{t('systemTasks.running')}</StateBadge>;
  if (!task.last_run) return <StateBadge tone="off">{t('systemTasks.notYet')}</StateBadge>;
  if (task.last_run.outcome === 'failed')
    return <StateBadge tone="bad">{t('systemTasks.failed')}</StateBadge>;
  if (task.last_run.outcome === 'ok') return <StateBadge tone="ok">{t('systemTasks.ok')}</StateBadge>;
  return <StateBadge tone="bad">{t('systemTasks.unfinished')}</StateBadge>;
}

/**
 * System Settings → System Tasks (admins, enableSystemTask): each background task — what it
 * does, how often, its latest run (node, start, end, outcome, what it did) and its last day —
 * and the mail waiting in the queues.
 */
export function SystemTasksScreen() {
  const { t, i18n } = useTranslation();
  const tasks = useSystemTasks();
  if (tasks.isPending) return <Loading label={t('systemTasks.loading')} />;
  if (tasks.isError) return <ApiErrorAlert error={tasks.error} />;
  return (
    <Stack gap="md">
      <Text size="sm">{t('systemTasks.intro')}</Text>
      <Section id="tasks-list" title={t('systemTasks.title')}>
        <TableScroll minWidth={900} label={t('systemTasks.caption')}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('systemTasks.columns.task')}</Table.Th>
                <Table.Th>{t('systemTasks.columns.state')}</Table.Th>
                <Table.Th>{t('systemTasks.columns.lastRun')}</Table.Th>
                <Table.Th>{t('systemTasks.columns.result')}</Table.Th>
                <Table.Th>{t('systemTasks.columns.day')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {tasks.data.tasks.map((task) => (
                <Table.Tr key={task.name}>
                  <Table.Td className="quarantine-table__message">
                    <Text size="sm" fw={600}>
                      {t(`systemTasks.names.${task.name}` as TranslationKey)}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {t('systemTasks.every', { count: task.every_minutes })}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <TaskState task={task} />
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {task.last_run ? (
                      <>
                        <Text size="sm">{formatDateTime(task.last_run.started_at, i18n.language)}</Text>
                        <Text size="xs" c="dimmed">
                          {t('systemTasks.onNode', { node: task.last_run.node })}
                        </Text>
                      </>
                    ) : (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td className="quarantine-table__message">
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {task.last_run?.detail ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Text size="sm">{t('systemTasks.runs', { count: task.runs_24h })}</Text>
                    {task.failures_24h > 0 && (
                      <Text size="xs" c="red.9">
                        {t('systemTasks.failures', { count: task.failures_24h })}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      </Section>
      <Section id="tasks-queues" title={t('systemStatus.queues.title')}>
        <QueueFigures queues={tasks.data.queues} />
      </Section>
    </Stack>
  );
}
