import { describe, expect, it } from 'vitest';
import { ago, contactLine, hermesLine, restoresTo } from './hermes';
import type { HermesState } from './types';

const base: HermesState = {
  hermes_home: '/home/ana/.hermes',
  home_exists: true,
  installed: false,
  active: false,
  provider: '',
  plugin_version: '',
  bundled_version: '1.0.0',
  outdated: false,
  previous_provider: '',
  previous_set: false,
  last_contact: null,
};

describe('hermes lines', () => {
  it.each([
    [{}, 'Hermes is not connected (Hermes home: /home/ana/.hermes).'],
    [{ home_exists: false }, 'No Hermes home at /home/ana/.hermes yet'],
    [{ installed: true, provider: 'honcho', plugin_version: '1.0.0' }, 'but Hermes uses "honcho"'],
    [{ installed: true, plugin_version: '1.0.0' }, 'uses its built-in memory only'],
    [{ installed: true, active: true, plugin_version: '1.0.0' }, 'Connected: Hermes uses HyAtlas as its memory (plugin 1.0.0'],
    [{ installed: true, active: true, plugin_version: '0.9.0', outdated: true }, 'An update (1.0.0) is ready.'],
  ] as [Partial<HermesState>, string][])('%o', (patch, want) => {
    expect(hermesLine({ ...base, ...patch })).toContain(want);
  });

  it('says when Hermes last called', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(contactLine(base, now)).toBe('');
    const on = { ...base, installed: true, active: true };
    expect(contactLine(on, now)).toContain('No contact from Hermes yet');
    expect(contactLine({ ...on, last_contact: '2026-11-30T11:55:00Z' }, now)).toBe('Last contact from Hermes: 5 min ago.');
    expect(ago('2026-11-30T11:59:50Z', now)).toBe('just now');
    expect(ago('2026-11-28T12:00:00Z', now)).toBe('2 d ago');
  });

  it('names what disconnecting restores', () => {
    expect(restoresTo(base)).toBe("Hermes's built-in memory");
    expect(restoresTo({ ...base, previous_set: true, previous_provider: 'mem0' })).toBe('"mem0"');
  });
});
