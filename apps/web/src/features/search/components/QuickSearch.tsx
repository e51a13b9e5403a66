import { Loader, Text, TextInput } from '@mantine/core';
import { type SEARCH_RESULT_TYPES, type SearchResult, searchResultPath } from '@moat/contracts/console';
import type { SaasApp } from '@moat/contracts/deployment';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from '../../../lib/i18n';
import { useQuickSearch } from '../use-quick-search';
import './quick-search.css';

const TYPE_LABEL = {
  email: 'search.types.email',
  event: 'search.types.event',
  user: 'search.types.user',
  rule: 'search.types.rule',
} as const satisfies Record<(typeof SEARCH_RESULT_TYPES)[number], string>;

/** Group headings: the app's name for people; an app not listed keeps its id. */
const APP_LABEL = {
  office365_emails: 'search.apps.office365_emails',
  google_mail: 'search.apps.google_mail',
  office365_onedrive: 'search.apps.office365_onedrive',
  office365_sharepoint: 'search.apps.office365_sharepoint',
  teams: 'search.apps.teams',
  google_drive: 'search.apps.google_drive',
  slack: 'search.apps.slack',
  box: 'search.apps.box',
  dropbox: 'search.apps.dropbox',
  smtp_emails: 'search.apps.smtp_emails',
} as const satisfies Record<SaasApp, string>;

function SearchGlyph() {
  return (
    <svg
      width={16}
      height={16}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M10 4a6 6 0 1 0 0 12 6 6 0 0 0 0-12M15 15l5 5" />
    </svg>
  );
}

/**
 * The top bar's quick search (SPEC §2.4 "Quick search", §5, §7, §8 "Shell"): a combobox whose
 * results, grouped by app, open in a panel. The panel closes on Escape, a click on the backdrop or
 * picking a result, which goes to the result's page.
 */
export function QuickSearch() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const search = useQuickSearch();
  const id = useId();
  const panelId = `${id}-panel`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [active, setActive] = useState(-1);

  const flat = useMemo(() => search.groups.flatMap((group) => group.results), [search.groups]);
  const optionId = (index: number) => `${id}-option-${index}`;
  // A new answer starts again from the field.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the list changes.
  useEffect(() => setActive(-1), [flat]);

  const pick = (result: SearchResult) => {
    search.close();
    void navigate(searchResultPath(result));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      if (search.open) {
        event.preventDefault();
        search.close();
      }
      return;
    }
    if (!search.open || flat.length === 0) return;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((index) => (index + 1) % flat.length);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => (index <= 0 ? flat.length - 1 : index - 1));
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      const result = flat[active];
      if (result) pick(result);
    }
  };

  const appLabel = (name: string) => {
    const key = APP_LABEL[name as SaasApp];
    return key ? t(key) : name;
  };

  let index = -1;
  return (
    <div className="quick-search">
      <TextInput
        ref={inputRef}
        type="text"
        role="combobox"
        aria-label={t('search.label')}
        aria-autocomplete="list"
        aria-expanded={search.open}
        aria-controls={panelId}
        aria-activedescendant={search.open && active >= 0 ? optionId(active) : undefined}
        placeholder={t('search.placeholder')}
        leftSection={<SearchGlyph />}
        value={search.value}
        onChange={(event) => search.change(event.currentTarget.value)}
        onFocus={search.focus}
        onBlur={search.blur}
        onKeyDown={onKeyDown}
        autoComplete="off"
        spellCheck={false}
        size="sm"
      />
      {search.open && (
        // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop is a pointer convenience; Escape closes too.
        // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard closes the panel with Escape on the field.
        <div className="quick-search__backdrop" data-testid="quick-search-backdrop" onClick={search.close} />
      )}
      <div id={panelId} className="quick-search__panel" hidden={!search.open}>
        {search.open && (
          <>
            <div role="status" className="quick-search__status">
              {search.loading && (
                <Text size="sm" c="dimmed" component="span" className="quick-search__message">
                  <Loader size="xs" /> {t('search.searching')}
                </Text>
              )}
              {!search.loading && search.failed && (
                <Text size="sm" c="red" component="span" className="quick-search__message">
                  {t('search.error')}
                </Text>
              )}
              {!search.loading && !search.failed && flat.length === 0 && (
                <Text size="sm" c="dimmed" component="span" className="quick-search__message">
                  {t('search.noResults')}
                </Text>
              )}
            </div>
            {!search.loading && !search.failed && flat.length > 0 && (
              <div role="listbox" aria-label={t('search.results')} className="quick-search__list">
                {search.groups.map((group) => {
                  const headingId = `${id}-group-${group.appName}`;
                  return (
                    // biome-ignore lint/a11y/useSemanticElements: an option group of a listbox, which a fieldset cannot be.
                    <div key={group.appName} role="group" aria-labelledby={headingId}>
                      <div id={headingId} className="quick-search__group" role="presentation">
                        {appLabel(group.appName)}
                      </div>
                      {group.results.map((result) => {
                        index += 1;
                        const position = index;
                        return (
                          <div
                            key={`${result.type}-${result.entity_id}`}
                            id={optionId(position)}
                            role="option"
                            aria-selected={position === active}
                            tabIndex={-1}
                            className="quick-search__option"
                            data-active={position === active || undefined}
                            // Keep the focus in the field, so the panel does not start closing.
                            onMouseDown={(event) => event.preventDefault()}
                            onMouseEnter={() => setActive(position)}
                            onClick={() => pick(result)}
                            onKeyDown={(event) => {
                              if (event.key === 'Enter') pick(result);
                            }}
                          >
                            <span className="quick-search__name">{result.name}</span>
                            <span className="quick-search__meta">
                              {t(TYPE_LABEL[result.type])}
                              {result.description ? ` · ${result.description}` : ''}
                            </span>
                          </div>
                        );
                      })}
                    </div>
                  );
                })}
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
}
