import {
  QUICK_SEARCH_DEBOUNCE_MS,
  QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS,
  QUICK_SEARCH_PANEL_DELAY_MS,
} from '@moat/contracts/constants';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { appsQueryOptions } from '../../lib/console-data/get-apps';
import { searchQueryOptions } from '../../lib/console-data/search';
import { enabledAppNames, quickSearchQuery, resultGroups, searchKeyword } from './quick-search';

type Timer = ReturnType<typeof setTimeout> | undefined;

/**
 * The quick search's state (SPEC §2.4, §5, §9): the search runs QUICK_SEARCH_DEBOUNCE_MS after
 * typing stops, with the trimmed keyword; an empty keyword clears the results at once and runs
 * nothing. The panel opens with the results, shows QUICK_SEARCH_PANEL_DELAY_MS after the field
 * gets the focus again, and closes QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS after the focus leaves.
 */
export function useQuickSearch() {
  const [value, setValue] = useState('');
  const [keyword, setKeyword] = useState('');
  const [panelOpen, setPanelOpen] = useState(false);
  const typing = useRef<Timer>(undefined);
  const focusOut = useRef<Timer>(undefined);
  const panelDelay = useRef<Timer>(undefined);

  // A failed apps call is not tried again just because the field appears (the shell already did).
  const apps = useQuery({ ...appsQueryOptions(), retryOnMount: false });
  const saas = enabledAppNames(apps.data);
  const search = useQuery({
    ...searchQueryOptions(quickSearchQuery(keyword, saas)),
    enabled: keyword !== '' && !apps.isPending,
  });
  const groups = useMemo(() => (search.data ? resultGroups(search.data) : []), [search.data]);

  useEffect(
    () => () => {
      clearTimeout(typing.current);
      clearTimeout(focusOut.current);
      clearTimeout(panelDelay.current);
    },
    [],
  );

  const change = useCallback((next: string) => {
    setValue(next);
    clearTimeout(typing.current);
    const trimmed = searchKeyword(next);
    if (trimmed === '') {
      setKeyword('');
      setPanelOpen(false);
      return;
    }
    typing.current = setTimeout(() => {
      setKeyword(trimmed);
      setPanelOpen(true);
    }, QUICK_SEARCH_DEBOUNCE_MS);
  }, []);

  const close = useCallback(() => {
    clearTimeout(panelDelay.current);
    clearTimeout(focusOut.current);
    setPanelOpen(false);
  }, []);

  const focus = useCallback(() => {
    clearTimeout(focusOut.current);
    clearTimeout(panelDelay.current);
    if (keyword !== '')
      panelDelay.current = setTimeout(() => setPanelOpen(true), QUICK_SEARCH_PANEL_DELAY_MS);
  }, [keyword]);

  const blur = useCallback(() => {
    clearTimeout(panelDelay.current);
    clearTimeout(focusOut.current);
    focusOut.current = setTimeout(() => setPanelOpen(false), QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS);
  }, []);

  return {
    value,
    change,
    keyword,
    open: panelOpen && keyword !== '',
    close,
    focus,
    blur,
    loading: search.isFetching && !search.data,
    failed: search.isError,
    groups,
  };
}
