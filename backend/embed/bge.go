package embed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"hyatlas/backend/embed/wordpiece"
	"hyatlas/backend/memory"

	ort "github.com/yalue/onnxruntime_go"
)

// BGE-small-en-v1.5 as its reference implementation runs it: the BERT
// tokenizer (basic tokenizer, then WordPiece), [CLS] text [SEP] up to 512
// tokens, the [CLS] token's last hidden state as the sentence vector, L2
// normalised; queries (not documents) carry the model's instruction
// prefix.
const (
	BGEName        = "bge-small-en-v1.5"
	bgeMaxTokens   = 512
	bgeQueryPrefix = "Represent this sentence for searching relevant passages: "
	// bgeBatch bounds one model run: its output is batch × tokens × 384.
	bgeBatch = 16
	// bgeMinScore: BGE's cosines run high; the public HyAtlas server
	// measured on-topic hits at 0.67 and above, off-topic at 0.55 and below.
	bgeMinScore = 0.6
)

// BGE embeds with BGE-small-en-v1.5 through ONNX Runtime.
type BGE struct {
	info  memory.EmbedderInfo
	vocab *wordpiece.Vocab
	s     *session
}

// LoadBGE loads model.onnx and vocab.txt from dir (the models manager's
// directory for bge-small) as the embedder id (it names the exact model
// file, so a different file never reuses its vectors). ORT must be
// initialised.
func LoadBGE(dir, id string, o SessionOptions) (*BGE, error) {
	model, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return nil, fmt.Errorf("read BGE model: %w", err)
	}
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.txt"))
	if err != nil {
		return nil, fmt.Errorf("read BGE vocabulary: %w", err)
	}
	return newBGE(model, vocab, id, o)
}

// newBGE builds the embedder from model bytes and a vocab.txt; id names
// the model (tests use BERT-shaped test models).
func newBGE(model, vocabTxt []byte, id string, o SessionOptions) (*BGE, error) {
	vocab, err := wordpiece.Load(bytes.NewReader(vocabTxt))
	if err != nil {
		return nil, fmt.Errorf("BGE vocabulary: %w", err)
	}
	s, err := newSession(model, []string{"input_ids", "attention_mask"}, []string{"token_type_ids"},
		"last_hidden_state", o)
	if err != nil {
		return nil, fmt.Errorf("BGE: %w", err)
	}
	b := &BGE{vocab: vocab, s: s}
	// The vector length is the model's hidden size: ask it once.
	out, err := b.run([]string{"dimension probe"})
	if err != nil {
		_ = s.close()
		return nil, err
	}
	b.info = memory.EmbedderInfo{ID: id, Name: "BGE-small-en-v1.5 (BAAI)", Dims: len(out[0]),
		Semantic: true, MinScore: bgeMinScore, GateScore: bgeMinScore}
	return b, nil
}

// Info describes the model.
func (b *BGE) Info() memory.EmbedderInfo { return b.info }

// Close frees the session.
func (b *BGE) Close() error { return b.s.close() }

// Embed implements memory.Embedder: queries get the instruction prefix.
func (b *BGE) Embed(ctx context.Context, texts []string, p memory.EmbedPurpose) ([][]float32, error) {
	if p == memory.PurposeQuery {
		prefixed := make([]string, len(texts))
		for i, t := range texts {
			prefixed[i] = bgeQueryPrefix + t
		}
		texts = prefixed
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += bgeBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs, err := b.run(texts[start:min(start+bgeBatch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// run embeds one batch: padded to its longest text, the [CLS] vector of
// each row, normalised.
func (b *BGE) run(texts []string) ([][]float32, error) {
	ids, mask, types, batch, seq := b.vocab.EncodeBatch(texts, bgeMaxTokens)
	vecs := make([][]float32, batch)
	err := b.s.run(batch, seq, map[string][]int64{"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
		func(data []float32, shape ort.Shape) error {
			if len(shape) != 3 || shape[0] != int64(batch) || shape[1] != int64(seq) {
				return fmt.Errorf("the model answered shape %v for %d×%d tokens", shape, batch, seq)
			}
			dims := int(shape[2])
			for i := range batch {
				cls := data[i*seq*dims : i*seq*dims+dims] // position 0 of row i
				v, ok := unit(cls)
				if !ok {
					return fmt.Errorf("the model returned a zero or non-finite vector")
				}
				vecs[i] = v
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("BGE: %w", err)
	}
	return vecs, nil
}

var _ memory.Embedder = (*BGE)(nil)
