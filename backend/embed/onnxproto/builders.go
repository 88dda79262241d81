package onnxproto

import (
	"fmt"
	"math"
	"math/rand"
)

// Opset and IR version of the models built here.
const (
	OpsetVersion = 17
	IRVersion    = 8
	producer     = "hyatlas-onnxproto"
)

// normEpsilon is the floor on the L2 norm: an all-zero sum stays zero.
const normEpsilon = 1e-12

// TinyBERTPositions is the number of rows of TinyBERT's position table,
// hence its longest sequence.
const TinyBERTPositions = 512

// BagOfWords builds a model with inputs input_ids and attention_mask (INT64
// [batch, seq]) and output sentence_embedding (FLOAT [batch, dims]):
// the L2-normalised, mask-weighted sum of the rows table[input_ids].
// table is row-major [vocabSize, dims]; row 0 is the padding/unknown row
// and should be zeros. Ids must lie in [0, vocabSize). A row whose tokens
// are all masked (or all zero rows) yields zeros, never NaN: the norm is
// floored at 1e-12.
func BagOfWords(table []float32, vocabSize, dims int) []byte {
	if vocabSize < 1 || dims < 1 || len(table) != vocabSize*dims {
		panic(fmt.Sprintf("onnxproto.BagOfWords: table has %d values, want %d×%d", len(table), vocabSize, dims))
	}
	b := newBuilder("bag_of_words")
	b.g.Inputs = []ValueInfo{idsInput("input_ids"), idsInput("attention_mask")}
	b.g.Outputs = []ValueInfo{TensorInfo("sentence_embedding", Float, Sym("batch"), Fixed(int64(dims)))}
	tbl := b.initializer(FloatTensor("embedding_table", []int64{int64(vocabSize), int64(dims)}, table))

	emb := b.op("Gather", []string{tbl, "input_ids"}, IntAttr("axis", 0)) // [b,s,d]
	mask := b.maskColumn("attention_mask")                                // [b,s,1]
	weighted := b.op("Mul", []string{emb, mask})
	sum := b.op("ReduceSum", []string{weighted, b.int64s("axis_seq", 1)}, IntAttr("keepdims", 0)) // [b,d]
	b.l2Normalize(sum, "sentence_embedding")
	return b.model()
}

// TinyBERT builds a BERT-shaped test model with deterministic pseudo-random
// weights drawn from seed. Inputs: input_ids, attention_mask and, when
// withTokenTypes, token_type_ids (INT64 [batch, seq], seq ≤ 512); output
// last_hidden_state (FLOAT [batch, seq, dims]):
//
//	h0 = word[ids] (+ type[types]) + pos[0:seq]
//	m  = Σ_t mask_t·h0_t / max(Σ_t mask_t, ε)      (per batch row)
//	out = tanh((h0 + m) · W)
//
// So the output at t depends on the token at t and on every unmasked token,
// but never on masked ones: padding must not change unmasked outputs.
func TinyBERT(vocabSize, dims int, seed int64, withTokenTypes bool) []byte {
	if vocabSize < 1 || dims < 1 {
		panic(fmt.Sprintf("onnxproto.TinyBERT: bad sizes %d×%d", vocabSize, dims))
	}
	rng := rand.New(rand.NewSource(seed))
	random := func(rows int, scale float64) []float32 {
		v := make([]float32, rows*dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		return v
	}
	d := int64(dims)
	b := newBuilder("tiny_bert")
	b.g.Inputs = []ValueInfo{idsInput("input_ids"), idsInput("attention_mask")}
	if withTokenTypes {
		b.g.Inputs = append(b.g.Inputs, idsInput("token_type_ids"))
	}
	b.g.Outputs = []ValueInfo{TensorInfo("last_hidden_state", Float, Sym("batch"), Sym("seq"), Fixed(d))}

	word := b.initializer(FloatTensor("word_embeddings", []int64{int64(vocabSize), d}, random(vocabSize, 0.5)))
	pos := b.initializer(FloatTensor("position_embeddings", []int64{TinyBERTPositions, d}, random(TinyBERTPositions, 0.1)))
	typ := ""
	if withTokenTypes {
		typ = b.initializer(FloatTensor("token_type_embeddings", []int64{2, d}, random(2, 0.1)))
	}
	w := b.initializer(FloatTensor("dense_weight", []int64{d, d}, random(dims, 1/math.Sqrt(float64(dims)))))

	h := b.op("Gather", []string{word, "input_ids"}, IntAttr("axis", 0)) // [b,s,d]
	if withTokenTypes {
		t := b.op("Gather", []string{typ, "token_type_ids"}, IntAttr("axis", 0))
		h = b.op("Add", []string{h, t})
	}
	shape := b.op("Shape", []string{"input_ids"})                                            // [2]
	seqLen := b.op("Gather", []string{shape, b.int64s("index_seq", 1)}, IntAttr("axis", 0))  // [1]
	p := b.op("Slice", []string{pos, b.int64s("zero", 0), seqLen, b.int64s("axis_rows", 0)}) // [s,d]
	h0 := b.op("Add", []string{h, p})

	mask := b.maskColumn("attention_mask") // [b,s,1]
	axes := b.int64s("axis_seq", 1)
	sum := b.op("ReduceSum", []string{b.op("Mul", []string{h0, mask}), axes}, IntAttr("keepdims", 1)) // [b,1,d]
	count := b.op("ReduceSum", []string{mask, axes}, IntAttr("keepdims", 1))                          // [b,1,1]
	count = b.op("Max", []string{count, b.float32s("count_floor", 1e-9)})
	mean := b.op("Div", []string{sum, count})
	h1 := b.op("Add", []string{h0, mean})
	b.node("Tanh", "last_hidden_state", []string{b.op("MatMul", []string{h1, w})})
	return b.model()
}

func idsInput(name string) ValueInfo {
	return TensorInfo(name, Int64, Sym("batch"), Sym("seq"))
}

// builder assembles a graph with generated value names.
type builder struct {
	g      Graph
	n      int
	consts map[string]bool
}

func newBuilder(name string) *builder {
	return &builder{g: Graph{Name: name}, consts: map[string]bool{}}
}

func (b *builder) node(opType, output string, inputs []string, attrs ...Attribute) string {
	b.g.Nodes = append(b.g.Nodes, Node{
		Name: fmt.Sprintf("%s_%d", opType, len(b.g.Nodes)), OpType: opType,
		Inputs: inputs, Outputs: []string{output}, Attrs: attrs,
	})
	return output
}

// op adds a node whose single output gets a fresh name, and returns it.
func (b *builder) op(opType string, inputs []string, attrs ...Attribute) string {
	b.n++
	return b.node(opType, fmt.Sprintf("t%d_%s", b.n, opType), inputs, attrs...)
}

func (b *builder) initializer(t Tensor) string {
	if !b.consts[t.Name] {
		b.consts[t.Name] = true
		b.g.Initializers = append(b.g.Initializers, t)
	}
	return t.Name
}

// int64s and float32s are 1-D constant initializers (reused by name).
func (b *builder) int64s(name string, v ...int64) string {
	return b.initializer(Int64Tensor(name, []int64{int64(len(v))}, v))
}

func (b *builder) float32s(name string, v ...float32) string {
	return b.initializer(FloatTensor(name, []int64{int64(len(v))}, v))
}

// maskColumn casts an INT64 [b,s] mask to FLOAT [b,s,1].
func (b *builder) maskColumn(mask string) string {
	m := b.op("Cast", []string{mask}, IntAttr("to", int64(Float)))
	return b.op("Unsqueeze", []string{m, b.int64s("axis_last", 2)})
}

// l2Normalize writes x / max(sqrt(sum(x²)), 1e-12) over the last axis of
// the [b,d] value x to output.
func (b *builder) l2Normalize(x, output string) {
	sq := b.op("ReduceSumSquare", []string{x}, IntsAttr("axes", 1), IntAttr("keepdims", 1)) // opset 13: axes is an attribute
	norm := b.op("Max", []string{b.op("Sqrt", []string{sq}), b.float32s("norm_floor", normEpsilon)})
	b.node("Div", output, []string{x, norm})
}

func (b *builder) model() []byte {
	m := Model{
		IRVersion:    IRVersion,
		ProducerName: producer,
		Opsets:       []OpsetID{{Version: OpsetVersion}},
		Graph:        b.g,
	}
	return m.Marshal()
}
