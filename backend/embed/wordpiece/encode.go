package wordpiece

import "sync"

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state {
	st := statePool.Get().(*state)
	st.ids, st.ends = st.ids[:0], st.ends[:0]
	return st
}

func putState(st *state) {
	if cap(st.ids) > 1<<20 || cap(st.word) > 1<<16 || cap(st.nfd) > 1<<16 {
		return // let an unusually large buffer go
	}
	statePool.Put(st)
}

// pieceLimit is how many pieces fit between [CLS] and [SEP] in maxLen
// tokens; maxLen <= 0 means no limit, maxLen 1 is treated as 2.
func pieceLimit(maxLen int) int {
	if maxLen <= 0 {
		return maxInt
	}
	return max(maxLen-2, 0)
}

// Encode returns [CLS] + the pieces of text + [SEP], keeping only the
// first maxLen-2 pieces so the result has at most maxLen ids (512 for
// BGE; maxLen <= 0: no truncation). Empty text gives [CLS] [SEP].
func (v *Vocab) Encode(text string, maxLen int) []int64 {
	st := getState()
	defer putState(st)
	limit := pieceLimit(maxLen)
	v.run(st, text, limit)
	ids := st.ids[:min(len(st.ids), limit)]
	out := make([]int64, len(ids)+2)
	out[0] = int64(v.cls)
	for i, id := range ids {
		out[i+1] = int64(id)
	}
	out[len(ids)+1] = int64(v.sep)
	return out
}

// EncodeBatch encodes every text like Encode and pads each row with [PAD]
// to the longest row. The results are row-major [batch, seqLen] tensors:
// input ids, attention mask (1 for real tokens, 0 for padding) and token
// type ids (all 0). No texts: all nil and 0.
func (v *Vocab) EncodeBatch(texts []string, maxLen int) (ids, mask, typeIDs []int64, batch, seqLen int) {
	batch = len(texts)
	if batch == 0 {
		return nil, nil, nil, 0, 0
	}
	st := getState()
	defer putState(st)
	limit := pieceLimit(maxLen)
	longest := 0
	for _, t := range texts {
		base := len(st.ids)
		v.run(st, t, limit)
		if len(st.ids)-base > limit {
			st.ids = st.ids[:base+limit]
		}
		longest = max(longest, len(st.ids)-base)
		st.ends = append(st.ends, len(st.ids))
	}
	seqLen = longest + 2
	ids = make([]int64, batch*seqLen)
	mask = make([]int64, batch*seqLen)
	typeIDs = make([]int64, batch*seqLen)
	pad := int64(v.pad)
	start := 0
	for r, end := range st.ends {
		row := ids[r*seqLen : (r+1)*seqLen]
		row[0] = int64(v.cls)
		k := 1
		for _, id := range st.ids[start:end] {
			row[k] = int64(id)
			k++
		}
		row[k] = int64(v.sep)
		k++
		m := mask[r*seqLen : (r+1)*seqLen]
		for i := range k {
			m[i] = 1
		}
		for ; k < seqLen; k++ {
			row[k] = pad
		}
		start = end
	}
	return ids, mask, typeIDs, batch, seqLen
}

// Tokenize returns the pieces of text as strings, without [CLS]/[SEP] and
// without truncation, like the reference tokenizer.tokenize(text).
func (v *Vocab) Tokenize(text string) []string {
	st := getState()
	defer putState(st)
	v.run(st, text, maxInt)
	out := make([]string, len(st.ids))
	for i, id := range st.ids {
		out[i] = v.tokens[id]
	}
	return out
}
