import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { applyDebugParam, isDebugMode } from './debug-mode';
import { useDebugMode } from './use-debug-mode';

describe('troubleshooting mode (SPEC §2.3 ?debug=1 / ?debug=0)', () => {
  it('is switched on by debug=1 and off by debug=0, and stays as it is otherwise', () => {
    expect(isDebugMode()).toBe(false);
    expect(applyDebugParam(new URLSearchParams('debug=1'))).toBe(true);
    expect(isDebugMode()).toBe(true);
    expect(applyDebugParam(new URLSearchParams('x=1'))).toBe(false);
    expect(applyDebugParam(new URLSearchParams('debug=yes'))).toBe(false);
    expect(isDebugMode()).toBe(true);
    applyDebugParam(new URLSearchParams('debug=0'));
    expect(isDebugMode()).toBe(false);
  });

  it('re-renders components that read it when it is switched', () => {
    const { result } = renderHook(() => useDebugMode());
    expect(result.current).toBe(false);
    act(() => {
      applyDebugParam(new URLSearchParams('debug=1'));
    });
    expect(result.current).toBe(true);
  });
});
