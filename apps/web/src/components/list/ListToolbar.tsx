import { Group, NativeSelect, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export interface ListFilter {
  name: string;
  label: string;
  value: string;
  options: Array<{ value: string; label: string }>;
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

/** Above a list: the search field (subject, sender, recipient) and the list's filters. */
export function ListToolbar({
  search,
  onSearchChange,
  filters,
}: {
  search: string;
  onSearchChange: (value: string) => void;
  filters: ListFilter[];
}) {
  const { t } = useTranslation();
  return (
    <Group gap="sm" align="flex-end" wrap="wrap" role="search">
      <TextInput
        type="search"
        label={t('quarantine.list.search')}
        placeholder={t('quarantine.list.searchPlaceholder')}
        value={search}
        onChange={(event) => onSearchChange(event.currentTarget.value)}
        className="list-toolbar__search"
        maxLength={200}
      />
      {filters.map((filter) => (
        <NativeSelect
          key={filter.name}
          name={filter.name}
          label={filter.label}
          data={filter.options}
          value={filter.value}
          onChange={(event) => filter.onChange(event.currentTarget.value)}
          className="list-toolbar__filter"
        />
      ))}
    </Group>
  );
}
