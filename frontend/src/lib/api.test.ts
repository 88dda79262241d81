import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  REQUEST_TIMEOUT_MS,
  SIGNED_OUT,
  createSnapshot,
  getStatus,
  linkOutcome,
  retire,
  signInFromLink,
  waitForRestart,
} from './api';

const sample = {
  status: 'ok',
  version: '0.1.0',
  mode: 'ultra',
  mode_detail: 'per-write extraction plus background consolidation (all 8 layers)',
  llm: 'unconfigured',
  llm_model: '',
  llm_base: '',
  uses_llm: true,
  writes: 12,
  searches: 3,
  total: 12,
  retired: 0,
  unextracted: 12,
  write_pipeline: 'ok',
  storage: 'ok',
  address: 'http://127.0.0.1:19528',
  vdb_points: 12,
  layers: {
    l1_profile: 0,
    l2_raw: 12,
    l3_fact: 0,
    l4_summary: 0,
    l5_knowledge: 0,
    l6_schema: 0,
    l7_intention: 0,
    l8_entity: 0,
  },
  embedder: { id: 'hash-384-v1', name: 'lexical hash', dims: 384, semantic: false },
  data_dir: '/home/u/.local/share/hyatlas',
  uptime: 42,
};

function mockFetch(impl: (...args: Parameters<typeof fetch>) => Promise<Response>) {
  const fn = vi.fn(impl);
  vi.stubGlobal('fetch', fn);
  return fn;
}

/** A fetch to a server that never answers: it ends only when aborted. */
function hangingFetch(_input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return new Promise((_resolve, reject) => {
    const signal = init?.signal;
    signal?.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError')));
  });
}

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the promise to reject');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('getStatus', () => {
  it('GETs /api/v1/status with same-origin credentials and parses the body', async () => {
    const fn = mockFetch(async () => Response.json(sample));
    const s = await getStatus();
    expect(s.total).toBe(12);
    expect(s.layers.l2_raw).toBe(12);
    expect(s.embedder.semantic).toBe(false);
    expect(fn).toHaveBeenCalledTimes(1);
    const [url, init] = fn.mock.calls[0];
    expect(url).toBe('/api/v1/status');
    expect(init?.credentials).toBe('same-origin');
  });

  it('passes the caller\'s abort on to the request, as an abort and not a timeout', async () => {
    const fn = mockFetch(hangingFetch);
    const ctrl = new AbortController();
    const p = caught(getStatus(ctrl.signal));
    ctrl.abort();
    const err = await p;
    expect(fn.mock.calls[0][1]?.signal?.aborted).toBe(true);
    expect(err.code).toBe('unreachable');
  });

  it('turns the server error shape into an ApiError', async () => {
    mockFetch(async () => Response.json({ error: 'no such memory', code: 'not_found' }, { status: 404 }));
    const err = await caught(getStatus());
    expect(err.status).toBe(404);
    expect(err.code).toBe('not_found');
    expect(err.message).toBe('no such memory');
  });

  it('says how to sign in again on a 401, not the message for agents', async () => {
    mockFetch(async () =>
      Response.json({ error: 'missing or wrong token: send Authorization: Bearer <token>', code: 'unauthorized' }, { status: 401 }),
    );
    const err = await caught(getStatus());
    expect(err.status).toBe(401);
    expect(err.code).toBe('unauthorized');
    expect(err.message).toBe(SIGNED_OUT);
    expect(err.message).toContain('hyatlas dashboard');
  });

  it('falls back to http_<status> and the body text for non-JSON errors', async () => {
    mockFetch(async () => new Response('upstream exploded', { status: 502 }));
    const err = await caught(getStatus());
    expect(err.status).toBe(502);
    expect(err.code).toBe('http_502');
    expect(err.message).toBe('upstream exploded');
  });

  it('maps a network failure to status 0 / unreachable', async () => {
    mockFetch(async () => {
      throw new TypeError('fetch failed');
    });
    const err = await caught(getStatus());
    expect(err.status).toBe(0);
    expect(err.code).toBe('unreachable');
    expect(err.message).toContain('fetch failed');
  });

  it('rejects a 200 answer that is not a status object', async () => {
    mockFetch(async () => Response.json({ hello: 'world' }));
    const err = await caught(getStatus());
    expect(err.code).toBe('bad_response');
  });

  it('rejects a 200 answer with invalid JSON', async () => {
    mockFetch(async () => new Response('<html>', { status: 200 }));
    const err = await caught(getStatus());
    expect(err.status).toBe(200);
    expect(err.code).toBe('bad_response');
  });
});

describe('waitForRestart', () => {
  it('waits for the server to go and come back', async () => {
    const answers = [true, true, false, false, false, true];
    let calls = 0;
    const status = async () => {
      const ok = answers[Math.min(calls++, answers.length - 1)];
      if (!ok) throw new Error('down');
    };
    await waitForRestart({ status, everyMs: 1, goneMs: 5000 });
    expect(calls).toBe(6);
  });
  it('goes on after goneMs when the restart was too quick to see', async () => {
    let calls = 0;
    await waitForRestart({ status: async () => void calls++, everyMs: 1, goneMs: 20 });
    expect(calls).toBeGreaterThan(1);
  });
  it('gives up when HyAtlas does not come back', async () => {
    const down = async () => {
      throw new Error('down');
    };
    await expect(waitForRestart({ status: down, everyMs: 1, goneMs: 5, timeoutMs: 30 })).rejects.toThrow(/did not come back/);
  });
});

describe('signInFromLink', () => {
  afterEach(() => vi.unstubAllGlobals());

  function page(href: string) {
    const stored: Record<string, string> = {};
    vi.stubGlobal('history', { replaceState: vi.fn() });
    vi.stubGlobal('localStorage', { setItem: (k: string, v: string) => (stored[k] = v), getItem: (k: string) => stored[k] ?? null });
    return { loc: { href } as Location, stored };
  }

  it.each([
    ['a session', () => Promise.resolve(new Response(JSON.stringify({ session: 's1' }), { status: 200 })), 'signed-in'],
    ['a used link (401)', () => Promise.resolve(new Response('{"error":"used"}', { status: 401 })), 'refused'],
    ['a server error', () => Promise.resolve(new Response('oops', { status: 500 })), 'failed'],
    ['a refused request (403)', () => Promise.resolve(new Response('{"error":"origin"}', { status: 403 })), 'failed'],
    ['no answer', () => Promise.reject(new TypeError('network')), 'failed'],
  ] as const)('says what %s came to', async (_name, answer, want) => {
    const { loc, stored } = page('http://127.0.0.1:19528/?code=abc');
    mockFetch(answer);
    expect(await signInFromLink(loc)).toBe(want);
    expect(linkOutcome).toBe(want);
    expect(stored['hyatlas.session'] ?? '').toBe(want === 'signed-in' ? 's1' : '');
  });

  it('does nothing without a code', async () => {
    const { loc } = page('http://127.0.0.1:19528/');
    const fn = mockFetch(() => Promise.reject(new Error('no call expected')));
    expect(await signInFromLink(loc)).toBe('none');
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('retire', () => {
  it.each([
    ['no longer useful', undefined, { reason: 'old' }],
    ['never true', 'wrong' as const, { reason: 'old', how: 'wrong' }],
  ])('POSTs the reason, and how only when it was never true (%s)', async (_, how, body) => {
    const fn = mockFetch(async () => Response.json({ memory_id: 'm1' }));
    await retire('m 1', 'old', how);
    const [url, init] = fn.mock.calls[0];
    expect(url).toBe('/api/v1/memories/m%201/retire');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(String(init?.body))).toEqual(body);
  });
});

describe('a server that does not answer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['a read', () => getStatus(), /try again in a moment/],
    ['a change', () => retire('m1', 'wrong'), /the change may still be made once it catches up/],
  ])('%s gives up after the time limit with a clear timeout', async (_name, call, says) => {
    vi.useFakeTimers();
    mockFetch(hangingFetch);
    const p = caught(call());
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    let settled = false;
    void p.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await p;
    expect(err.status).toBe(0);
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(says);
    expect(err.message).toContain(`${REQUEST_TIMEOUT_MS / 1000} s`);
  });

  it('gives up when the answer starts but its body never ends', async () => {
    vi.useFakeTimers();
    mockFetch(async (_input, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(ctl) {
          ctl.enqueue(new TextEncoder().encode('{"status":'));
          init?.signal?.addEventListener('abort', () => ctl.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
    });
    const p = caught(getStatus());
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS);
    expect((await p).code).toBe('timeout');
  });

  it('leaves no timer behind once answered', async () => {
    vi.useFakeTimers();
    mockFetch(async () => Response.json(sample));
    await getStatus();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits as long as it takes for long work (a snapshot)', async () => {
    vi.useFakeTimers();
    let answer: (r: Response) => void = () => {};
    const fn = mockFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const p = createSnapshot();
    await vi.advanceTimersByTimeAsync(10 * REQUEST_TIMEOUT_MS);
    expect(fn.mock.calls[0][1]?.signal ?? null).toBeNull();
    answer(Response.json({ id: 's1' }));
    expect(await p).toEqual({ id: 's1' });
  });
});
