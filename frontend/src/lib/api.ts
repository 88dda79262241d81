// The only module that talks to the backend. Everything goes through
// fetch('/api/v1/...') with the same-origin cookie (dashboard) or nothing
// at all (the Wails window serves the API in-process).
import type { Status } from './types';

const API_PREFIX = '/api/v1';

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

/** Builds an ApiError from a non-2xx response and its `{"error","code"}` body. */
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
    return new ApiError(res.status, code, message);
  }
  return new ApiError(res.status, `http_${res.status}`, fallback);
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(API_PREFIX + path, {
      ...init,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...init.headers },
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ApiError(0, 'unreachable', `network error: ${reason}`);
  }
  if (!res.ok) {
    throw await errorFromResponse(res);
  }
  try {
    return (await res.json()) as T;
  } catch {
    throw new ApiError(res.status, 'bad_response', 'the server answered with invalid JSON');
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
