import { Button, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { DATE_RANGE_PRESETS } from '@moat/contracts/list';
import { type ReactNode, useId, useState } from 'react';
import { useTranslation } from '../../lib/i18n';
import type { RangeChoice } from './use-list-state';

export interface ListFilter {
  name: string;
  label: string;
  value: string;
  /** A choice among options (the first one "all"), or free text when absent. */
  options?: Array<{ value: string; label: string }>;
  placeholder?: string;
  onChange: (value: string) => void;
}

/** A filter over one of a list's enumerations; '' (the first option) is "all". */
export function enumFilter<V extends string>({
  name,
  label,
  allLabel,
  values,
  labelOf,
  value,
  onChange,
}: {
  name: string;
  label: string;
  allLabel: string;
  values: readonly V[];
  labelOf: (value: V) => string;
  value: V | '';
  onChange: (value: V | '') => void;
}): ListFilter {
  return {
    name,
    label,
    value,
    onChange: (next) => onChange(next as V | ''),
    options: [{ value: '', label: allLabel }, ...values.map((v) => ({ value: v, label: labelOf(v) }))],
  };
}

/** The time-range control of a list's toolbar: presets, all time, or two dates (both included). */
export interface RangeControl {
  value: RangeChoice;
  fromDay: string;
  toDay: string;
  onChange: (range: RangeChoice, fromDay?: string, toDay?: string) => void;
}

function RangeFilter({ range }: { range: RangeControl }) {
  const { t } = useTranslation();
  const options = [
    { value: '', label: t('list.range.all') },
    ...DATE_RANGE_PRESETS.map((preset) => ({ value: preset, label: t(`list.range.${preset}`) })),
    { value: 'custom', label: t('list.range.custom') },
  ];
  return (
    <>
      <NativeSelect
        name="range"
        label={t('list.range.label')}
        data={options}
        value={range.value}
        onChange={(event) =>
          range.onChange(event.currentTarget.value as RangeChoice, range.fromDay, range.toDay)
        }
        className="list-toolbar__filter"
      />
      {range.value === 'custom' && (
        <>
          <TextInput
            type="date"
            name="from"
            label={t('list.range.from')}
            value={range.fromDay}
            max={range.toDay || undefined}
            onChange={(event) => range.onChange('custom', event.currentTarget.value, range.toDay)}
            className="list-toolbar__date"
          />
          <TextInput
            type="date"
            name="to"
            label={t('list.range.to')}
            value={range.toDay}
            min={range.fromDay || undefined}
            onChange={(event) => range.onChange('custom', range.fromDay, event.currentTarget.value)}
            className="list-toolbar__date"
          />
        </>
      )}
    </>
  );
}

/** Above a list: the search field (subject, sender, recipient), the time range, the filters and the list's own buttons. On a phone the filters fold under a button, so the list itself is in view. */
export function ListToolbar({
  search,
  onSearchChange,
  searchPlaceholder,
  range,
  filters,
  actions,
}: {
  search: string;
  onSearchChange: (value: string) => void;
  searchPlaceholder?: string;
  range?: RangeControl;
  filters: ListFilter[];
  /** Buttons at the end of the toolbar (export, bulk actions). */
  actions?: ReactNode;
}) {
  const { t } = useTranslation();
  const narrow = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  const [unfolded, setUnfolded] = useState(false);
  const panelId = useId();
  const active = filters.filter((filter) => filter.value !== '').length + (range?.value ? 1 : 0);
  const searchField = (
    <TextInput
      type="search"
      label={t('quarantine.list.search')}
      placeholder={searchPlaceholder ?? t('quarantine.list.searchPlaceholder')}
      value={search}
      onChange={(event) => onSearchChange(event.currentTarget.value)}
      className="list-toolbar__search"
      maxLength={200}
    />
  );
  const filterFields = (
    <>
      {range && <RangeFilter range={range} />}
      {filters.map((filter) =>
        filter.options ? (
          <NativeSelect
            key={filter.name}
            name={filter.name}
            label={filter.label}
            data={filter.options}
            value={filter.value}
            onChange={(event) => filter.onChange(event.currentTarget.value)}
            className="list-toolbar__filter"
          />
        ) : (
          <TextFilter key={filter.name} filter={filter} />
        ),
      )}
    </>
  );
  const hasFilters = filters.length > 0 || range !== undefined;
  if (narrow && hasFilters) {
    return (
      <Stack gap="sm" role="search" className="list-toolbar--narrow">
        {searchField}
        <Group gap="xs" wrap="wrap" justify="space-between">
          <Button
            size="sm"
            variant="default"
            onClick={() => setUnfolded((open) => !open)}
            aria-expanded={unfolded}
            aria-controls={unfolded ? panelId : undefined}
          >
            {active > 0 ? t('list.filtersActive', { count: active }) : t('list.filters')}
          </Button>
          {actions && (
            <Group gap="xs" wrap="wrap">
              {actions}
            </Group>
          )}
        </Group>
        {unfolded && (
          <Group id={panelId} gap="sm" align="flex-end" wrap="wrap">
            {filterFields}
          </Group>
        )}
      </Stack>
    );
  }
  return (
    <Group gap="sm" align="flex-end" wrap="wrap" role="search">
      {searchField}
      {filterFields}
      {actions && (
        <Group gap="xs" ml="auto" wrap="wrap">
          {actions}
        </Group>
      )}
    </Group>
  );
}

/** A free-text filter: applied when the field is left or Enter is pressed, not on every key. */
function TextFilter({ filter }: { filter: ListFilter }) {
  return (
    <TextInput
      key={filter.value}
      name={filter.name}
      label={filter.label}
      placeholder={filter.placeholder}
      defaultValue={filter.value}
      maxLength={320}
      onBlur={(event) => {
        if (event.currentTarget.value.trim() !== filter.value)
          filter.onChange(event.currentTarget.value.trim());
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') filter.onChange(event.currentTarget.value.trim());
      }}
      className="list-toolbar__filter"
    />
  );
}
