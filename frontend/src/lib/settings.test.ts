import { describe, expect, it } from 'vitest';
import { baseForPreset, changed, inLabels, pendingChanges, presetOf } from './settings';

describe('settings form', () => {
  it.each([
    ['http://127.0.0.1:11434/v1', 'ollama'],
    ['http://127.0.0.1:11434/v1/', 'ollama'],
    ['http://127.0.0.1:8080/v1', 'llamacpp'],
    ['https://api.example.com/v1', 'hosted'],
    ['http://10.0.0.5:9000/v1', 'custom'],
    ['', 'custom'],
  ])('presetOf(%s) = %s', (base, want) => {
    expect(presetOf(base)).toBe(want);
  });

  it('sends only what changed and never a pinned value', () => {
    const next = { llm_base: '', llm_model: '', mode: 'ultra', snapshot_keep: '7' };
    const form = { llm_base: ' http://127.0.0.1:11434/v1 ', llm_model: 'qwen3:8b', mode: 'pro', snapshot_keep: '7' };
    expect(changed(form, next, ['mode'])).toEqual({ llm_base: 'http://127.0.0.1:11434/v1', llm_model: 'qwen3:8b' });
    expect(changed(next, next, [])).toEqual({});
  });

  it('lists what a restart would change', () => {
    expect(pendingChanges({ mode: 'ultra', llm_model: '' }, { mode: 'pro', llm_model: 'm' })).toEqual([
      'Model: — → m',
      'Mode: ultra → pro',
    ]);
  });
});

describe('inLabels', () => {
  it('names settings as the form does', () => {
    expect(inLabels('consolidate_every: "0" would never consolidate; ultra mode needs an interval such as 6h (or use mode pro)')).toBe(
      'Consolidate every: "0" would never consolidate; ultra mode needs an interval such as 6h (or use Mode pro)',
    );
    expect(inLabels('llm_model is longer than 256 bytes')).toBe('Model is longer than 256 bytes');
  });
});

describe('baseForPreset', () => {
  it.each([
    ['a local server: its address', 'lmstudio', 'https://api.example/v1', 'http://127.0.0.1:1234/v1'],
    // The hosted preset has no address: a local preset's is cleared, not kept under it.
    ['hosted after Ollama: cleared', 'hosted', 'http://127.0.0.1:11434/v1', ''],
    ['hosted keeps a hosted address typed', 'hosted', 'https://api.example/v1', 'https://api.example/v1'],
    ['hosted keeps another address typed', 'hosted', 'http://10.0.0.5:9000/v1', 'http://10.0.0.5:9000/v1'],
    ['an unknown preset changes nothing', 'custom', 'http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1'],
  ])('%s', (_, id, current, want) => {
    expect(baseForPreset(id, current)).toBe(want);
  });
});
