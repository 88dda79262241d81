/** Wire ids of the eight memory layers, in order L1..L8. */
export type LayerId =
  | 'l1_profile'
  | 'l2_raw'
  | 'l3_fact'
  | 'l4_summary'
  | 'l5_knowledge'
  | 'l6_schema'
  | 'l7_intention'
  | 'l8_entity';

/** LLM states the server reports; unknown future values are passed through. */
export type LlmState = 'ok' | 'unconfigured' | 'awaiting_key' | 'unused' | (string & {});

export interface Embedder {
  id: string;
  name: string;
  dims: number;
  semantic: boolean;
}

/** Re-embedding after a change of embedder (running: in progress). */
export interface Reembed {
  running: boolean;
  embedder?: string;
  done: number;
  total: number;
  error?: string;
}

/** The part of GET /api/v1/status the UI uses (the server may send more). */
export interface Status {
  status: string;
  version: string;
  mode: string;
  mode_detail: string;
  llm: LlmState;
  llm_model: string;
  llm_base: string;
  uses_llm: boolean;
  writes: number;
  searches: number;
  total: number;
  retired: number;
  unextracted: number;
  vdb_points: number;
  layers: Record<LayerId, number>;
  embedder: Embedder;
  reembed?: Reembed;
  data_dir: string;
  /** Seconds since the server started. */
  uptime: number;
}
