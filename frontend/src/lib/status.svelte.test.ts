import { afterEach, describe, expect, it, vi } from 'vitest';
import { movedSince, statusStore } from './status.svelte';

const status = { status: 'ok', total: 3, layers: { l2_raw: 3 } };

function answer(ok: boolean) {
  vi.stubGlobal('window', { document: { title: '' } }); // where the title goes
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => {
      if (!ok) throw new TypeError('Failed to fetch');
      return new Response(JSON.stringify(status), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
}

// Pages read again when HyAtlas answers again (onReconnect): `back` counts
// those returns, and only those.
describe('statusStore.back', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('counts the answers that follow a failed read', async () => {
    answer(true);
    await statusStore.load();
    expect(statusStore.back).toBe(0); // a first answer is no return
    answer(false);
    await statusStore.load();
    await statusStore.load();
    expect(statusStore.connection).toBe('reconnecting');
    expect(statusStore.back).toBe(0);
    answer(true);
    await statusStore.load();
    expect(statusStore.connection).toBe('live');
    expect(statusStore.back).toBe(1);
    await statusStore.load(); // still up: nothing to read again
    expect(statusStore.back).toBe(1);
    answer(false);
    await statusStore.load();
    answer(true);
    await statusStore.load();
    expect(statusStore.back).toBe(2);
  });
});

describe('movedSince', () => {
  it('says once per move, never for the count it started at', () => {
    const moved = movedSince(3);
    expect([moved(3), moved(4), moved(4), moved(5), moved(5)]).toEqual([false, true, false, true, false]);
  });
});
