import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyTitle, memoriesTitle, type TitleHost } from './title';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('memoriesTitle', () => {
  it('pluralises', () => {
    expect(memoriesTitle(0)).toBe('HyAtlas · 0 memories');
    expect(memoriesTitle(1)).toBe('HyAtlas · 1 memory');
    expect(memoriesTitle(2)).toBe('HyAtlas · 2 memories');
    expect(memoriesTitle(1234)).toBe('HyAtlas · 1234 memories');
  });
});

describe('applyTitle', () => {
  it('sets document.title and the Wails window title when the runtime exists', () => {
    const WindowSetTitle = vi.fn();
    const host: TitleHost = { document: { title: '' }, runtime: { WindowSetTitle } };
    expect(applyTitle(13, host)).toBe('HyAtlas · 13 memories');
    expect(host.document.title).toBe('HyAtlas · 13 memories');
    expect(WindowSetTitle).toHaveBeenCalledExactlyOnceWith('HyAtlas · 13 memories');
  });

  it('only sets document.title outside Wails', () => {
    const host: TitleHost = { document: { title: '' } };
    applyTitle(1, host);
    expect(host.document.title).toBe('HyAtlas · 1 memory');
  });

  it('ignores a runtime without WindowSetTitle', () => {
    const host = { document: { title: '' }, runtime: { WindowSetTitle: 'nope' } };
    expect(() => applyTitle(2, host as unknown as TitleHost)).not.toThrow();
    expect(host.document.title).toBe('HyAtlas · 2 memories');
  });

  it('keeps the document title when the native call throws', () => {
    const host: TitleHost = {
      document: { title: '' },
      runtime: {
        WindowSetTitle: () => {
          throw new Error('no window');
        },
      },
    };
    applyTitle(3, host);
    expect(host.document.title).toBe('HyAtlas · 3 memories');
  });

  it('defaults to the global window', () => {
    const WindowSetTitle = vi.fn();
    const fake = { document: { title: '' }, runtime: { WindowSetTitle } };
    vi.stubGlobal('window', fake);
    applyTitle(5);
    expect(fake.document.title).toBe('HyAtlas · 5 memories');
    expect(WindowSetTitle).toHaveBeenCalledWith('HyAtlas · 5 memories');
  });
});
