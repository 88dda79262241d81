// The Settings form's rules (pure, tested): presets, labels, what changed.

/** An endpoint preset: a local server's usual address, or a hosted API. */
export interface Preset {
  id: string;
  label: string;
  base: string;
  hint: string;
}

export const PRESETS: readonly Preset[] = [
  { id: 'ollama', label: 'Ollama', base: 'http://127.0.0.1:11434/v1', hint: 'e.g. qwen3:8b (ollama pull first); no key' },
  { id: 'lmstudio', label: 'LM Studio', base: 'http://127.0.0.1:1234/v1', hint: 'the model id LM Studio shows; no key' },
  { id: 'llamacpp', label: 'llama.cpp server', base: 'http://127.0.0.1:8080/v1', hint: 'any name (llama-server serves one model); no key' },
  { id: 'vllm', label: 'vLLM', base: 'http://127.0.0.1:8000/v1', hint: 'the served model name; no key' },
  { id: 'hosted', label: 'A hosted OpenAI-compatible API', base: '', hint: "its API root (https://…/v1) and a model; set a key below" },
];

/** The preset whose address base is ("custom" when none). */
export function presetOf(base: string): string {
  const b = base.trim().replace(/\/+$/, '');
  if (!b) return 'custom';
  const p = PRESETS.find((p) => p.base && p.base === b);
  if (p) return p.id;
  return /^https:\/\//.test(b) ? 'hosted' : 'custom';
}

/** The endpoint after choosing preset id, from the one typed (current): a
 * local server's address, or for the hosted preset (which has none) the
 * one typed, unless that is a local preset's, which is cleared for the
 * hosted API's own address to be typed. */
export function baseForPreset(id: string, current: string): string {
  const p = PRESETS.find((p) => p.id === id);
  if (!p) return current;
  if (p.base) return p.base;
  return presetOf(current) !== 'custom' && presetOf(current) !== 'hosted' ? '' : current;
}

export const LABELS: Record<string, string> = {
  llm_base: 'Endpoint',
  llm_model: 'Model',
  mode: 'Mode',
  sync_extract: 'Writes wait for extraction',
  consolidate_every: 'Consolidate every',
  snapshot_every: 'Snapshot every',
  snapshot_keep: 'Snapshots kept',
};

/** A message about settings in the form's words: each setting's key becomes its label. */
export function inLabels(msg: string): string {
  // "mode" is also a plain word ("ultra mode needs…"): only as a setting's name.
  const keys = Object.keys(LABELS).filter((k) => k !== 'mode');
  return msg
    .replace(new RegExp(`\\b(${keys.join('|')})\\b`, 'g'), (k) => LABELS[k] ?? k)
    .replace(/\bmode(?=:| (?:pro|lite|ultra)\b)/g, LABELS.mode);
}

export const ENV: Record<string, string> = {
  llm_base: 'HYATLAS_LLM_BASE',
  llm_model: 'HYATLAS_LLM_MODEL',
  mode: 'HYATLAS_MODE',
  sync_extract: 'HYATLAS_SYNC_EXTRACT',
  consolidate_every: 'HYATLAS_CONSOLIDATE_EVERY',
  snapshot_every: 'HYATLAS_SNAPSHOT_EVERY',
  snapshot_keep: 'HYATLAS_SNAPSHOT_KEEP',
};

export const MODES = [
  { id: 'lite', text: 'lite: keep raw turns only, no LLM call' },
  { id: 'pro', text: 'pro: each write is distilled into facts, a profile and intentions' },
  { id: 'ultra', text: 'ultra: pro, plus background consolidation and the knowledge graph' },
];

/** The choices for "wait for extraction" ('' follows the mode). */
export const SYNC = [
  { id: '', text: 'as the mode says (pro waits, ultra does not)' },
  { id: 'on', text: 'yes: a write returns once it is extracted' },
  { id: 'off', text: 'no: extract in the background' },
];

/** The keys whose form value differs from what applies at the next start. */
export function changed(form: Record<string, string>, next: Record<string, string>, pinned: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    if (pinned.includes(k)) continue;
    if ((v ?? '').trim() !== (next[k] ?? '').trim()) out[k] = (v ?? '').trim();
  }
  return out;
}

/** The settings whose running value differs from the next start's, as "Mode: ultra → pro". */
export function pendingChanges(running: Record<string, string>, next: Record<string, string>): string[] {
  return Object.keys(LABELS)
    .filter((k) => (running[k] ?? '') !== (next[k] ?? ''))
    .map((k) => `${LABELS[k]}: ${running[k] || '—'} → ${next[k] || '—'}`);
}
