import { Stack, Text } from '@mantine/core';
import type { SystemTask } from '@moat/contracts/console';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { FitTable } from '../../../components/ui/FitTable';
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
  if (tasks.isPending) return <Loading label={t('systemTasks.loading')} />;
  if (tasks.isError) return <ApiErrorAlert error={tasks.error} />;
  return (
    <Stack gap="md">
      <Text size="sm">{t('systemTasks.intro')}</Text>
      <Section id="tasks-list" title={t('systemTasks.title')}>
        <FitTable
          caption={t('systemTasks.caption')}
          rows={tasks.data.tasks}
          rowKey={(task) => task.name}
          cardsBelow="48em"
          columns={[
            { key: 'task', label: t('systemTasks.columns.task'), cell: (task) => <TaskName task={task} /> },
            {
              key: 'state',
              label: t('systemTasks.columns.state'),
              width: '9rem',
              cell: (task) => <TaskState task={task} />,
            },
            {
              key: 'lastRun',
              label: t('systemTasks.columns.lastRun'),
              width: '12rem',
              cell: (task) => <LastRun task={task} />,
            },
            {
              key: 'result',
              label: t('systemTasks.columns.result'),
              cell: (task) => (
                <Text size="sm" className="list-text-anywhere">
                  {task.last_run?.detail ?? '—'}
                </Text>
              ),
            },
            {
              key: 'day',
              label: t('systemTasks.columns.day'),
              width: '9rem',
              cell: (task) => <LastDay task={task} />,
            },
          ]}
        />
      </Section>
      <Section id="tasks-queues" title={t('systemStatus.queues.title')}>
        <QueueFigures queues={tasks.data.queues} />
      </Section>
    </Stack>
  );
}
