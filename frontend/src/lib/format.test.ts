import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import {
  LAYERS,
  clipText,
  errorKind,
  errorText,
  extractionFailure,
  formatUptime,
  historyLine,
  llmProblemText,
  llmStateText,
  modelErrorText,
  passText,
  plural,
  reembedText,
} from './format';

describe('clipText', () => {
  it('keeps a short text and cuts a long one, at a space when one is near', () => {
    expect(clipText('short', 10)).toBe('short');
    expect(clipText('aaaa bbbb cccc', 11)).toBe('aaaa bbbb…');
    expect(clipText('x'.repeat(30), 10)).toBe('x'.repeat(10) + '…');
    expect(clipText('😀'.repeat(5), 3)).toBe('😀😀😀…'); // never half a character
  });
});

describe('passText', () => {
  it('says what a pass did, or that it did not finish and why', () => {
    expect(passText({ digest_ok: true, report: { edges: 2 } })).toBe('Pass done: 2 new relations.');
    expect(passText({ digest_ok: false, reason: 'consolidation needs ultra mode' })).toBe('consolidation needs ultra mode');
    expect(
      passText({
        digest_ok: true,
        report: { edges: 0, clusters_pending: 1, errors: ['consolidate: llm: 127.0.0.1:11434 (model llama3): dial tcp: connection refused after 4 attempts'] },
      }),
    ).toBe('The pass did not finish: nothing answers at 127.0.0.1:11434: is the model server running? 0 new relations; 1 topic waits for the next pass.');
  });
});

describe('llmProblemText', () => {
  it('words the common failures and keeps any other as it is', () => {
    const at = (tail: string) => `extract: llm: api.example:443 (model m): ${tail}`;
    expect(llmProblemText(at('dial tcp: lookup api.example: no such host'))).toBe('the address api.example:443 cannot be found: check it in Settings');
    expect(llmProblemText(at('HTTP 401: bad key: the extraction endpoint is unavailable'))).toBe('api.example:443 refused the key: check it in Settings');
    expect(llmProblemText(at('HTTP 404: no such model'))).toBe('api.example:443 does not know this model or address: check both in Settings');
    expect(llmProblemText(at('timed out'))).toBe('api.example:443 did not answer in time');
    expect(llmProblemText(at('HTTP 503: busy after 4 attempts'))).toBe('api.example:443 had an error of its own; HyAtlas tries again later');
    expect(llmProblemText('degraded: something new')).toBe('something new');
  });
});

describe('extractionFailure', () => {
  const refused = 'degraded: extract: llm: 127.0.0.1:11434 (model m): HTTP 401: refused';
  const full = "the disk holding HyAtlas's data is full: nothing was stored; free some space and try again";
  // A full disk degrades the write pipeline too: that is no failed call of
  // the endpoint, and the LLM's state must not say it is.
  it.each([
    ['all is well', { write_pipeline: 'ok', storage: 'ok' }, ''],
    ['the last call failed', { write_pipeline: refused, storage: 'ok' }, refused],
    ['an older server without storage', { write_pipeline: refused }, refused],
    ['the disk is full', { write_pipeline: `degraded: ${full}`, storage: full }, ''],
    ['no status field', {}, ''],
  ])('%s', (_, status, want) => {
    expect(extractionFailure(status)).toBe(want);
    const words = llmStateText('ok', 'm', extractionFailure(status));
    expect(words.includes('last call failed')).toBe(want !== '');
  });
});

describe('llmStateText', () => {
  it('words every known state', () => {
    expect(llmStateText('ok', 'qwen3:8b')).toBe('ready (qwen3:8b)');
    expect(llmStateText('ok')).toBe('ready');
    expect(llmStateText('unconfigured')).toBe(
      'no extraction model set: memories are kept as written; choose a model in Settings',
    );
    expect(llmStateText('awaiting_key', 'x')).toBe(
      'endpoint set, waiting for its key: add it in Settings (or run hyatlas key set)',
    );
    expect(llmStateText('unused')).toBe('lite mode: no LLM calls');
  });

  it('says a set-up endpoint whose last call failed is not ready, in words', () => {
    const refused =
      'degraded: extract: llm: 127.0.0.1:11434 (model llama3): dial tcp 127.0.0.1:11434: connect: connection refused after 4 attempts';
    expect(llmStateText('ok', 'llama3', refused)).toBe(
      'set (llama3), but its last call failed: nothing answers at 127.0.0.1:11434: is the model server running?',
    );
    expect(llmStateText('ok', 'llama3', 'ok')).toBe('ready (llama3)');
  });

  it('names an unknown state instead of hiding it', () => {
    expect(llmStateText('melting')).toBe('unknown state "melting"');
  });
});

describe('formatUptime', () => {
  it.each([
    [0, '0 s'],
    [42, '42 s'],
    [42.9, '42 s'],
    [60, '1 min'],
    [185, '3 min 5 s'],
    [3600, '1 h'],
    [7380, '2 h 3 min'],
    [86400, '1 d'],
    [100800, '1 d 4 h'],
    [-1, 'unknown'],
    [Number.NaN, 'unknown'],
  ])('%s s → %s', (secs, want) => {
    expect(formatUptime(secs)).toBe(want);
  });
});

describe('layers and wording', () => {
  it('lists L1..L8 in order with human names', () => {
    expect(LAYERS.map((l) => `${l.level}:${l.name}:${l.id}`)).toEqual([
      'L1:Profile:l1_profile',
      'L2:Raw:l2_raw',
      'L3:Fact:l3_fact',
      'L4:Summary:l4_summary',
      'L5:Knowledge:l5_knowledge',
      'L6:Schema:l6_schema',
      'L7:Intention:l7_intention',
      'L8:Entity:l8_entity',
    ]);
  });

  it('pluralises', () => {
    expect(plural(1, 'memory', 'memories')).toBe('1 memory');
    expect(plural(0, 'memory', 'memories')).toBe('0 memories');
  });

  it('classifies errors for the banner', () => {
    expect(errorKind(new ApiError(401, 'unauthorized', 'x'))).toBe('signin');
    expect(errorKind(new ApiError(0, 'unreachable', 'x'))).toBe('unreachable');
    expect(errorKind(new ApiError(500, 'internal', 'x'))).toBe('server');
    expect(errorText(new ApiError(500, 'internal', 'disk full'))).toBe(
      'The server answered 500 internal: disk full.',
    );
    expect(errorText(new ApiError(0, 'unreachable', 'HyAtlas did not answer (stopped or restarting?); try again once it is back (fetch failed)'))).toBe(
      'Cannot reach the HyAtlas server: it stopped or is restarting.',
    );
    expect(errorText(new ApiError(0, 'timeout', 'HyAtlas did not answer within 30 s'))).toBe(
      'The HyAtlas server did not answer in time: it is busy or not responding.',
    );
  });
});

describe('reembedText', () => {
  it('counts and rounds down the percentage', () => {
    expect(reembedText({ done: 1200, total: 5000 })).toBe('1200 of 5000 memories re-embedded (24%)');
    expect(reembedText({ done: 0, total: 1 })).toBe('0 of 1 memory re-embedded (0%)');
    expect(reembedText({ done: 0, total: 0 })).toBe('0 of 0 memories re-embedded (0%)');
  });
});

describe('historyLine', () => {
  it.each([
    [{ action: 'retired', how: 'dropped', reason: 'no longer true' }, 'retired: no longer true'],
    [{ action: 'retired', how: 'replaced' }, 'replaced by a newer version'],
    [{ action: 'restored', how: 'dropped', reason: 'no longer true' }, 'restored (it had been retired: no longer true)'],
    [{ action: 'restored' }, 'restored'],
    [{ action: 'edited', detail: 'strength 0.50 -> 0.60' }, 'strength 0.50 → 0.60'],
    [{ action: 'edited', old_content: 'old text', detail: 'category "" -> "goal"' }, 'text edited; category "" → "goal"'],
    [{ action: 'edited' }, 'edited'],
    // A reason or a detail is shown as the row shows text: a control or an override drawn, not run.
    [{ action: 'retired', how: 'dropped', reason: 'x\u001b[31m\u202eevil' }, 'retired: x\u241b[31m\ufffdevil'],
    [{ action: 'restored', how: 'dropped', reason: '\u202eevil' }, 'restored (it had been retired: \ufffdevil)'],
    [{ action: 'edited', detail: 'category "a" -> "\u202eb"' }, 'category "a" → "\ufffdb"'],
  ])('%j', (h, want) => {
    expect(historyLine(h)).toBe(want);
  });
});

describe('modelErrorText', () => {
  it.each([
    ['download bge-small/model.onnx interrupted after 2752512 bytes (run the install again to resume): unexpected EOF', 'broke off after 2.8 MB'],
    ['Get "http://127.0.0.1:9/resolve/x/onnx/model.onnx": dial tcp 127.0.0.1:9: connect: connection refused', 'Nothing answers at the models address'],
    ['model.onnx: sha256 does not match', 'checksum differs'],
    ['the models folder is read-only', 'the models folder is read-only'],
  ])('%s', (err, want) => expect(modelErrorText(err)).toContain(want));
});
