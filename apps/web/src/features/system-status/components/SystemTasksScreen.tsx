import { Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { SystemTask } from '@moat/contracts/console';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
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

function TaskName({ task }: { task: SystemTask }) {
  const { t } = useTranslation();
  return (
    <>
      <Text size="sm" fw={600}>
        {t(`systemTasks.names.${task.name}` as TranslationKey)}
      </Text>
      <Text size="xs" c="dimmed">
        {t('systemTasks.every', { count: task.every_minutes })}
      </Text>
    </>
  );
}

function LastRun({ task }: { task: SystemTask }) {
  const { t, i18n } = useTranslation();
  if (!task.last_run)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <>
      <Text size="sm">{formatDateTime(task.last_run.started_at, i18n.language)}</Text>
      <Text size="xs" c="dimmed" className="list-text-anywhere">
        {t('systemTasks.onNode', { node: task.last_run.node })}
      </Text>
    </>
  );
}

function LastDay({ task }: { task: SystemTask }) {
  const { t } = useTranslation();
  return (
    <>
      <Text size="sm">{t('systemTasks.runs', { count: task.runs_24h })}</Text>
      {task.failures_24h > 0 && (
        <Text size="xs" c="red.9">
          {t('systemTasks.failures', { count: task.failures_24h })}
        </Text>
      )}
    </>
  );
}

/**
 * System Settings → System Tasks (admins, enableSystemTask): each background task — what it
 * does, how often, its latest run (node, start, end, outcome, what it did) and its last day —
 * and the mail waiting in the queues.
 */
export function SystemTasksScreen() {
  const { t } = useTranslation();
  const tasks = useSystemTasks();
  const narrow = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  if (tasks.isPending) return <Loading label={t('systemTasks.loading')} />;
  if (tasks.isError) return <ApiErrorAlert error={tasks.error} />;
  return (
    <Stack gap="md">
      <Text size="sm">{t('systemTasks.intro')}</Text>
      <Section id="tasks-list" title={t('systemTasks.title')}>
        {narrow ? (
          // A phone: one card per task, nothing to scroll sideways.
          <ul className="list-cards" aria-label={t('systemTasks.caption')}>
            {tasks.data.tasks.map((task) => (
              <li key={task.name} className="list-card">
                <div className="list-card__head">
                  <div className="list-card__title">
                    <TaskName task={task} />
                  </div>
                  <TaskState task={task} />
                </div>
                <dl className="list-card__fields">
                  <div className="list-card__field">
                    <dt>{t('systemTasks.columns.lastRun')}</dt>
                    <dd>
                      <LastRun task={task} />
                    </dd>
                  </div>
                  <div className="list-card__field">
                    <dt>{t('systemTasks.columns.result')}</dt>
                    <dd>{task.last_run?.detail ?? '—'}</dd>
                  </div>
                  <div className="list-card__field">
                    <dt>{t('systemTasks.columns.day')}</dt>
                    <dd>
                      <LastDay task={task} />
                    </dd>
                  </div>
                </dl>
              </li>
            ))}
          </ul>
        ) : (
          <Table verticalSpacing="xs" className="list-table">
            <VisuallyHidden component="caption">{t('systemTasks.caption')}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('systemTasks.columns.task')}</Table.Th>
                <Table.Th w="9rem">{t('systemTasks.columns.state')}</Table.Th>
                <Table.Th w="12rem">{t('systemTasks.columns.lastRun')}</Table.Th>
                <Table.Th>{t('systemTasks.columns.result')}</Table.Th>
                <Table.Th w="9rem">{t('systemTasks.columns.day')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {tasks.data.tasks.map((task) => (
                <Table.Tr key={task.name}>
                  <Table.Td className="list-table__cell">
                    <TaskName task={task} />
                  </Table.Td>
                  <Table.Td className="list-table__cell">
                    <TaskState task={task} />
                  </Table.Td>
                  <Table.Td className="list-table__cell">
                    <LastRun task={task} />
                  </Table.Td>
                  <Table.Td className="list-table__cell">
                    <Text size="sm" className="list-text-anywhere">
                      {task.last_run?.detail ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td className="list-table__cell">
                    <LastDay task={task} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Section>
      <Section id="tasks-queues" title={t('systemStatus.queues.title')}>
        <QueueFigures queues={tasks.data.queues} />
      </Section>
    </Stack>
  );
}
