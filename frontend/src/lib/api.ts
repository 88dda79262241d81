// The only module that talks to the backend. Everything goes through
// fetch('/api/v1/...') with the dashboard's session header (a browser) or
// nothing at all (the Wails window serves the API in-process).
import type {
  Day,
  Detail,
  EgressCall,
  GraphHistory,
  KeyStatus,
  ModelInfo,
  ListPage,
  Memory,
  PromptBlock,
  RestoreReport,
  SearchAnswer,
  Snapshot,
  Status,
  WorkspaceDoc,
  ChosenFile,
  ExportedFile,
  ImportReport,
  ImportedFile,
  HermesState,
  GraphNeighbourhood,
  SettingsState,
  ConnectionTest,
} from './types';

const API_PREFIX = '/api/v1';

// The dashboard's session: traded for the one-time code of a sign-in link
// and kept in this origin's storage, which (unlike a cookie) no page on
// another port of this host can read or is sent.
const SESSION_KEY = 'hyatlas.session';
export const SESSION_HEADER = 'X-HyAtlas-Session';

function storedSession(): string {
  try {
    return localStorage.getItem(SESSION_KEY) ?? '';
  } catch {
    return '';
  }
}

/** What the sign-in link this page was opened with came to. */
export type LinkOutcome = 'none' | 'signed-in' | 'refused' | 'failed';

/** The outcome of this page's sign-in link, for the signed-out message. */
export let linkOutcome: LinkOutcome = 'none';

/**
 * Signs the dashboard in when the address carries a sign-in link's code:
 * trades it for a session, keeps that, and drops the code from the
 * address. A used or unknown code leaves the page signed out ('refused':
 * each link works once, and the page then says to get a new one).
 */
export async function signInFromLink(loc: Location = location): Promise<LinkOutcome> {
  const url = new URL(loc.href);
  const code = url.searchParams.get('code');
  if (!code) return (linkOutcome = 'none');
  url.searchParams.delete('code');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
  try {
    const res = await fetch('/dashboard/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    if (!res.ok) return (linkOutcome = res.status === 401 ? 'refused' : 'failed'); // 401: used or unknown
    const body = (await res.json()) as { session?: string };
    if (!body.session) return (linkOutcome = 'failed');
    localStorage.setItem(SESSION_KEY, body.session);
    return (linkOutcome = 'signed-in');
  } catch {
    return (linkOutcome = 'failed'); // unreachable or no storage: the page shows it is signed out
  }
}

/** An API failure. status 0 with code 'unreachable' means no HTTP answer at all. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What every page says when the server refuses this page's session (401):
 * HyAtlas started again, or its token changed. The server's own words are
 * for agents ("send Authorization: Bearer"), which a person here cannot act on.
 */
export const SIGNED_OUT =
  'This page is signed out (HyAtlas started again, or its token changed): run `hyatlas dashboard` for a new sign-in link and open it here.';

/**
 * Builds an ApiError from a non-2xx response and its `{"error","code"}`
 * body; a 401 says SIGNED_OUT.
 */
async function errorFromResponse(res: Response): Promise<ApiError> {
  let body: unknown = null;
  let text = '';
  try {
    text = await res.text();
    body = JSON.parse(text);
  } catch {
    // not JSON: fall back to the raw text or the status line
  }
  const fallback = text.trim() || res.statusText || `HTTP ${res.status}`;
  if (isRecord(body)) {
    const message = typeof body.error === 'string' && body.error ? body.error : fallback;
    const code = typeof body.code === 'string' && body.code ? body.code : `http_${res.status}`;
    return new ApiError(res.status, code, res.status === 401 ? SIGNED_OUT : message);
  }
  if (res.status === 401) return new ApiError(401, 'http_401', SIGNED_OUT);
  return new ApiError(res.status, `http_${res.status}`, fallback);
}

/**
 * How long a request waits for HyAtlas's answer before the page gives up
 * and says so (a frozen or overloaded server would otherwise leave a
 * button spinning for good). Work that may rightly take longer (imports,
 * exports, snapshots, a consolidation pass, the keyring, a native dialog)
 * passes NO_TIMEOUT; the connection test waits longer than the server's own
 * 30 s limit for it.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** For requests that wait for long work or for the user: no time limit. */
export const NO_TIMEOUT = 0;
const TEST_TIMEOUT_MS = 45_000;

/**
 * A time limit for one request, chained to the caller's own signal (an
 * abort by the caller stays an abort, not a timeout).
 */
class Deadline {
  readonly signal: AbortSignal | undefined;
  expired = false;
  private readonly ctl = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unchain: () => void = () => {};

  constructor(caller: AbortSignal | null | undefined, ms: number) {
    if (ms <= 0) {
      this.signal = caller ?? undefined;
      return;
    }
    this.signal = this.ctl.signal;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.ctl.abort();
    }, ms);
    if (caller) {
      const follow = () => this.ctl.abort(caller.reason);
      if (caller.aborted) follow();
      else {
        caller.addEventListener('abort', follow, { once: true });
        this.unchain = () => caller.removeEventListener('abort', follow);
      }
    }
  }

  clear(): void {
    clearTimeout(this.timer);
    this.unchain();
  }
}

/**
 * The error for a request that got no answer in time. A write may still be
 * made once HyAtlas catches up, so it says to look before trying again.
 */
function timeoutError(method: string | undefined, ms: number): ApiError {
  const s = Math.round(ms / 1000);
  const read = !method || method.toUpperCase() === 'GET';
  return new ApiError(
    0,
    'timeout',
    read
      ? `HyAtlas did not answer within ${s} s (busy, or not responding); try again in a moment`
      : `HyAtlas did not answer within ${s} s (busy, or not responding): the change may still be made once it catches up, so look before you try again`,
  );
}

/**
 * Sends a request to the API; resolves with a 2xx response, rejects with an
 * ApiError. With a deadline, its expiry is a 'timeout' ApiError.
 */
async function send(path: string, init: RequestInit = {}, deadline?: Deadline, timeoutMs = 0): Promise<Response> {
  let res: Response;
  try {
    const session = storedSession();
    res = await fetch(API_PREFIX + path, {
      ...init,
      ...(deadline ? { signal: deadline.signal } : {}),
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(session ? { [SESSION_HEADER]: session } : {}), ...init.headers },
    });
  } catch (err) {
    if (deadline?.expired) throw timeoutError(init.method, timeoutMs);
    const reason = err instanceof Error ? err.message : String(err);
    // No answer at all: HyAtlas stopped or is restarting. A write may not
    // have been stored; the page says so in words, with the browser's reason.
    throw new ApiError(0, 'unreachable', `HyAtlas did not answer (stopped or restarting?); try again once it is back (${reason})`);
  }
  if (!res.ok) {
    throw await errorFromResponse(res);
  }
  return res;
}

/**
 * Sends a request and reads its JSON answer, within timeoutMs (the body
 * included; NO_TIMEOUT for none).
 */
async function request<T>(path: string, init: RequestInit = {}, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
  const deadline = new Deadline(init.signal, timeoutMs);
  try {
    const res = await send(path, init, deadline, timeoutMs);
    try {
      return (await res.json()) as T;
    } catch {
      if (deadline.expired) throw timeoutError(init.method, timeoutMs);
      throw new ApiError(res.status, 'bad_response', 'the server answered with invalid JSON');
    }
  } finally {
    deadline.clear();
  }
}

/** GET /api/v1/status */
export async function getStatus(signal?: AbortSignal): Promise<Status> {
  const status = await request<Status>('/status', { signal });
  if (!isRecord(status) || typeof status.total !== 'number' || !isRecord(status.layers)) {
    throw new ApiError(200, 'bad_response', 'the status answer is missing fields');
  }
  return status;
}

function json(method: string, body?: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** Query parameters of the Atlas list. */
export interface ListQuery {
  layer?: string;
  user_id?: string;
  category?: string;
  q?: string;
  min_strength?: number;
  max_strength?: number;
  sort?: 'date' | 'oldest' | 'strength';
  include_superseded?: boolean;
  include_raw?: boolean;
  limit?: number;
  offset?: number;
  /** A page's `next`: the page starts right after that page's last row. */
  after?: string;
}

/** GET /api/v1/list */
export function listMemories(q: ListQuery, signal?: AbortSignal): Promise<ListPage> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined && v !== '' && v !== null) params.set(k, String(v));
  }
  return request<ListPage>(`/list?${params}`, { signal });
}

export const getMemory = (id: string) => request<Detail>(`/memories/${encodeURIComponent(id)}`);

export interface RememberInput {
  content: string;
  category?: string;
  strength?: number;
  layer?: string;
  user_id?: string;
}
export const remember = (m: RememberInput) => request<Memory>('/memories', json('POST', m));

/** PATCH a memory; if_content: only while its text is this (412 "stale" otherwise). */
export const editMemory = (id: string, change: { content?: string; category?: string; strength?: number; if_content?: string }) =>
  request<Memory>(`/memories/${encodeURIComponent(id)}`, json('PATCH', change));

export const promote = (id: string) => request<Memory>(`/memories/${encodeURIComponent(id)}/promote`, json('POST'));
export const demote = (id: string) => request<Memory>(`/memories/${encodeURIComponent(id)}/demote`, json('POST'));

/** Retires a memory; how "wrong" says it was never true (see the knowledge graph in the README). */
export const retire = (id: string, reason: string, how?: 'wrong') =>
  request<Memory>(`/memories/${encodeURIComponent(id)}/retire`, json('POST', how ? { reason, how } : { reason }));

export const restore = (id: string) =>
  request<Memory>(`/memories/${encodeURIComponent(id)}/restore`, json('POST'));

export const deleteMemory = (id: string) =>
  request<{ deleted: boolean }>(`/memories/${encodeURIComponent(id)}`, { method: 'DELETE' });

export const search = (query: string, user_id = '', limit = 10, layer = '') =>
  request<SearchAnswer>('/search', json('POST', { query, limit, ...(user_id ? { user_id } : {}), ...(layer ? { layer } : {}) }));

export const getPrompt = (user_id = '') =>
  request<PromptBlock>(`/prompt${user_id ? `?user_id=${encodeURIComponent(user_id)}` : ''}`);

export const listSnapshots = () => request<{ snapshots: Snapshot[] }>('/snapshots');
export const createSnapshot = () => request<Snapshot>('/snapshots', json('POST'), NO_TIMEOUT);
export const verifySnapshot = (id: string) =>
  request<{ ok: boolean }>(`/snapshots/${encodeURIComponent(id)}/verify`, json('POST'), NO_TIMEOUT);
export const restoreSnapshot = (id: string) =>
  request<RestoreReport>(`/snapshots/${encodeURIComponent(id)}/restore`, json('POST'), NO_TIMEOUT);
export const deleteSnapshot = (id: string) =>
  request<{ deleted: boolean }>(`/snapshots/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** Whether this page is the desktop window's (Wails), not a browser tab's. */
export const inWindow = () => typeof window !== 'undefined' && !!window.runtime;

export type ExportFormat = 'jsonl' | 'markdown';

/**
 * A browser tab's export: GET /api/v1/export, handed to the browser as a
 * download. A JSON Lines export that lacks its end record was cut short
 * and is refused rather than saved as if whole.
 */
export async function downloadExport(format: ExportFormat, doc: Document = document): Promise<{ name: string; bytes: number }> {
  const res = await send(`/export?format=${format}`);
  const blob = await res.blob();
  if (format === 'jsonl' && !(await blob.slice(Math.max(0, blob.size - 256)).text()).includes('"type":"end"')) {
    throw new ApiError(0, 'cut_short', 'the export was cut short (HyAtlas stopped?): nothing was saved; try again');
  }
  const fallback = format === 'jsonl' ? 'hyatlas-export.jsonl' : 'hyatlas-memory.md';
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? fallback;
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = name;
  doc.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // the download has read it by then
  return { name, bytes: blob.size };
}

/** A browser tab's import: the file's bytes as POST /api/v1/import's body. */
export const uploadImport = (file: Blob) =>
  request<ImportReport>('/import', { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: file }, NO_TIMEOUT);

/** The window's export: HyAtlas asks where (a native dialog) and writes the file. */
export const windowExport = (format: ExportFormat) => request<ExportedFile>(`/window/export?format=${format}`, json('POST'), NO_TIMEOUT);

/** The window's import, step 1: HyAtlas asks which file (a native dialog); nothing is read yet. */
export const windowChooseImport = () => request<ChosenFile>('/window/import/choose', json('POST'), NO_TIMEOUT);

/** The window's import, step 2: HyAtlas imports the export chosen in step 1. */
export const windowImport = (path: string) => request<ImportedFile>('/window/import', json('POST', { path }), NO_TIMEOUT);

/** The largest export HyAtlas imports (4 GiB). */
export const MAX_IMPORT_BYTES = 4 * 2 ** 30;

export const keyStatus = () => request<KeyStatus>('/settings/llm-key', {}, NO_TIMEOUT); // the keyring may ask to be unlocked
export const saveKey = (key: string, memoryOnly = false) =>
  request<KeyStatus>('/settings/llm-key', json('PUT', { key, memory_only: memoryOnly }), NO_TIMEOUT);
export const deleteKey = () => request<KeyStatus>('/settings/llm-key', { method: 'DELETE' }, NO_TIMEOUT);

export const egress = (limit = 50) => request<{ calls: EgressCall[] }>(`/egress?limit=${limit}`);

const wsPath = (agent: string, file: string) =>
  `/workspace/${encodeURIComponent(agent)}/${encodeURIComponent(file)}`;
export const readWorkspace = (agent: string, file: string) => request<WorkspaceDoc>(wsPath(agent, file));
export const writeWorkspace = (agent: string, file: string, content: string, etag: string) =>
  request<WorkspaceDoc>(wsPath(agent, file), json('PUT', { content }, etag ? { 'If-Match': etag } : {}));

export const getAutostart = () => request<{ supported: boolean; enabled: boolean }>('/settings/autostart');
export const setAutostart = (enabled: boolean) =>
  request<{ supported: boolean; enabled: boolean }>('/settings/autostart', json('PUT', { enabled }));

export const getSettings = () => request<SettingsState>('/settings');
export const putSettings = (values: Record<string, string>) => request<SettingsState>('/settings', json('PUT', values));
export const testConnection = (llm_base: string, llm_model: string) =>
  request<ConnectionTest>('/settings/test', json('POST', { llm_base, llm_model }), TEST_TIMEOUT_MS);
export const restartApp = () => request<{ restarting: boolean }>('/restart', json('POST'));

export const apiToken = () => request<{ token: string }>('/token');
/** POST /api/v1/token: a new API token; the old one stops working at once. */
export const newApiToken = () => request<{ token: string }>('/token', json('POST'));

export const hermesStatus = () => request<HermesState>('/hermes');
export const hermesInstall = () => request<HermesState>('/hermes/install', json('POST', {}));
export const hermesUninstall = () => request<HermesState>('/hermes/uninstall', json('POST', {}));

export const listModels = () => request<{ models: ModelInfo[] }>('/models');
export const installModel = (name: string) =>
  request<unknown>(`/models/${encodeURIComponent(name)}/install`, json('POST'));
/** Stops an install under way; the part downloaded stays for the next Install. */
export const cancelModelInstall = (name: string) =>
  request<unknown>(`/models/${encodeURIComponent(name)}/cancel`, json('POST'));

export const timeline = (days = 30) => request<{ days: Day[] }>(`/stats/timeline?days=${days}`);

export const graphHistory = (user_id = '') =>
  request<GraphHistory>(`/graph/history${user_id ? `?user_id=${encodeURIComponent(user_id)}` : ''}`);
export const graphNode = (id: string) => request<GraphNeighbourhood>(`/graph?node=${encodeURIComponent(id)}`);
export const digestNow = () =>
  request<{ digest_ok: boolean; reason?: string; report?: PassReport }>('/digest', json('POST'), NO_TIMEOUT);

/** What a consolidation pass did (POST /digest's report). */
export interface PassReport {
  clusters_run: number;
  edges: number;
  clusters_pending?: number;
  errors?: string[];
}

/**
 * Resolves once HyAtlas is back after a restart: it waits until the
 * server has gone (a failed request) or `goneMs` passed, then until a
 * status answers. Rejects after `timeoutMs`.
 */
export async function waitForRestart(
  opts: { goneMs?: number; timeoutMs?: number; everyMs?: number; status?: () => Promise<unknown> } = {},
): Promise<void> {
  const { goneMs = 3000, timeoutMs = 120_000, everyMs = 400 } = opts;
  const status = opts.status ?? (() => getStatus());
  const start = Date.now();
  const pause = () => new Promise((r) => setTimeout(r, everyMs));
  let gone = false;
  while (!gone && Date.now() - start < goneMs) {
    try {
      await status();
      await pause();
    } catch {
      gone = true;
    }
  }
  while (Date.now() - start < timeoutMs) {
    try {
      await status();
      return;
    } catch {
      await pause();
    }
  }
  throw new Error('HyAtlas did not come back within two minutes');
}
