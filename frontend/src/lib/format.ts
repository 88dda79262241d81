// Pure formatting helpers for the Status view (no DOM, unit-tested).
import type { ApiError } from './api';
import type { LayerId } from './types';
import { printable } from './atlas';

export interface LayerInfo {
  id: LayerId;
  level: string;
  name: string;
}

/** The eight layers in order L1..L8. */
export const LAYERS: readonly LayerInfo[] = [
  { id: 'l1_profile', level: 'L1', name: 'Profile' },
  { id: 'l2_raw', level: 'L2', name: 'Raw' },
  { id: 'l3_fact', level: 'L3', name: 'Fact' },
  { id: 'l4_summary', level: 'L4', name: 'Summary' },
  { id: 'l5_knowledge', level: 'L5', name: 'Knowledge' },
  { id: 'l6_schema', level: 'L6', name: 'Schema' },
  { id: 'l7_intention', level: 'L7', name: 'Intention' },
  { id: 'l8_entity', level: 'L8', name: 'Entity' },
];

/** The LLM state in words. */
export function llmStateText(state: string, model = '', pipeline = ''): string {
  switch (state) {
    case 'ok':
      // Set up is not the same as working: the last call's failure is said.
      if (pipeline.startsWith('degraded')) return `set${model ? ` (${model})` : ''}, but its last call failed: ${llmProblemText(pipeline)}`;
      return model ? `ready (${model})` : 'ready';
    case 'unconfigured':
      return 'no extraction model set: memories are kept as written; choose a model in Settings';
    case 'awaiting_key':
      return 'endpoint set, waiting for its key: add it in Settings (or run hyatlas key set)';
    case 'unused':
      return 'lite mode: no LLM calls';
    default:
      return `unknown state "${state}"`;
  }
}

/**
 * The status's write_pipeline when it tells of the extraction endpoint's
 * last failed call, else "": when all is well, and when the cause is the
 * disk (write_pipeline then repeats the status's storage, which the page
 * shows on its own: the endpoint did not fail).
 */
export function extractionFailure(s: { write_pipeline?: string; storage?: string }): string {
  const p = s.write_pipeline ?? '';
  return p.startsWith('degraded') && (s.storage ?? 'ok') === 'ok' ? p : '';
}

/**
 * The failure of an extraction call (the status's write_pipeline, or its
 * text after "degraded: ") in words a user can act on; the raw text is for
 * the details.
 */
export function llmProblemText(raw: string): string {
  const msg = raw.replace(/^degraded: /, '');
  const host = /llm: ([^\s]+) \(model/.exec(msg)?.[1] ?? 'the endpoint';
  if (/connection refused/.test(msg)) return `nothing answers at ${host}: is the model server running?`;
  if (/no such host|server misbehaving/.test(msg)) return `the address ${host} cannot be found: check it in Settings`;
  if (/HTTP 401|HTTP 403/.test(msg)) return `${host} refused the key: check it in Settings`;
  if (/HTTP 404/.test(msg)) return `${host} does not know this model or address: check both in Settings`;
  if (/HTTP 429/.test(msg)) return `${host} asks to slow down (rate limit); HyAtlas tries again later`;
  if (/timed out|deadline exceeded|timeout/.test(msg)) return `${host} did not answer in time`;
  if (/HTTP 5\d\d/.test(msg)) return `${host} had an error of its own; HyAtlas tries again later`;
  return msg;
}

/** The first max characters of text, cut at a space when one is near, with "…"; text itself when it is short. */
export function clipText(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max).join('');
  const space = head.lastIndexOf(' ');
  return `${space > max * 0.8 ? head.slice(0, space) : head}…`;
}

/** s as a sentence: a full stop added unless it ends with one, "?" or "!". */
export function sentence(s: string): string {
  return /[.?!]$/.test(s) ? s : `${s}.`;
}

/** What a pass the user ran did, or why it did not finish, in words. */
export function passText(r: { digest_ok: boolean; reason?: string; report?: { edges: number; errors?: string[]; clusters_pending?: number } }): string {
  if (!r.digest_ok) return r.reason ?? 'No pass ran.';
  const errs = r.report?.errors ?? [];
  const edges = plural(r.report?.edges ?? 0, 'new relation', 'new relations');
  if (errs.length === 0) return `Pass done: ${edges}.`;
  const left = r.report?.clusters_pending ?? 0;
  const why = `${llmProblemText(errs[0])}${errs.length > 1 ? ` (and ${errs.length - 1} more)` : ''}`;
  return (
    `The pass did not finish: ${sentence(why)} ` +
    `${edges}${left > 0 ? `; ${plural(left, 'topic waits', 'topics wait')} for the next pass` : ''}.`
  );
}

/** Seconds as a short human duration: "42 s", "3 min 5 s", "2 h 3 min", "1 d 4 h". */
export function formatUptime(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'unknown';
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return sec > 0 ? `${m} min ${sec} s` : `${m} min`;
  return `${sec} s`;
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export type ErrorKind = 'signin' | 'unreachable' | 'server';

/** Classifies a failure for the banner; 401 means the dashboard session is missing. */
export function errorKind(err: ApiError): ErrorKind {
  if (err.status === 401) return 'signin';
  if (err.status === 0) return 'unreachable';
  return 'server';
}

/** Banner text for failures other than 401 (which has its own markup). */
export function errorText(err: ApiError): string {
  if (err.code === 'timeout') return 'The HyAtlas server did not answer in time: it is busy or not responding.';
  if (err.status === 0) return 'Cannot reach the HyAtlas server: it stopped or is restarting.';
  return `The server answered ${err.status} ${err.code}: ${err.message}.`;
}

/** "1200 of 5000 memories re-embedded (24%)" for a running re-embed. */
export function reembedText(r: { done: number; total: number }): string {
  const pct = r.total > 0 ? Math.floor((100 * r.done) / r.total) : 0;
  return `${r.done} of ${plural(r.total, 'memory', 'memories')} re-embedded (${pct}%)`;
}

const RETIRED_AS: Record<string, string> = {
  dropped: 'retired',
  replaced: 'replaced by a newer version',
  updated: 'updated by a newer version',
  merged: 'merged into another memory',
  restated: 'stated again by another memory',
  done: 'marked done',
  forgotten: 'forgotten',
  compacted: 'folded into a summary',
  wrong: 'marked as never true',
};

/** One history entry in words (the old text, when there is one, is shown
 * apart). A reason or a detail (a category) is shown printable, as the
 * row shows its text. */
export function historyLine(h: { action: string; how?: string; reason?: string; detail?: string; old_content?: string }): string {
  const reason = h.reason ? `: ${printable(h.reason)}` : '';
  switch (h.action) {
    case 'retired':
      return `${RETIRED_AS[h.how ?? ''] ?? 'retired'}${reason}`;
    case 'restored':
      return h.how ? `restored (it had been ${RETIRED_AS[h.how] ?? 'retired'}${reason})` : 'restored';
    case 'edited': {
      const parts: string[] = [];
      if (h.old_content !== undefined && h.old_content !== '') parts.push('text edited');
      if (h.detail) parts.push(printable(h.detail.replaceAll(' -> ', ' → ')));
      return parts.length ? parts.join('; ') : 'edited';
    }
    default:
      return `${h.action}${h.how ? ` (${h.how})` : ''}${reason}`;
  }
}

/**
 * A failed model download in words a person can act on (the server's own
 * text names Go's error); anything else passes unchanged.
 */
export function modelErrorText(err: string): string {
  const cut = err.match(/interrupted after (\d+) bytes/);
  if (cut) {
    const mb = (Number(cut[1]) / 1e6).toFixed(1);
    return `The download broke off after ${mb} MB (the network or the server stopped sending). Install again to go on from there.`;
  }
  if (/dial tcp|connection refused|no such host|i\/o timeout|network is unreachable|TLS handshake/i.test(err)) {
    return 'Nothing answers at the models address: check the network (or HYATLAS_MODELS_BASE), then install again.';
  }
  if (/checksum mismatch|does not match/i.test(err)) {
    return 'The downloaded file is not the model it should be (its checksum differs); it was not used. Install again.';
  }
  return err;
}
