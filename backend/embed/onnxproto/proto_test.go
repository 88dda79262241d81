package onnxproto

import (
	"bytes"
	"testing"
)

// Wire bytes worked out by hand from the field numbers in proto.go.
func TestWireEncoding(t *testing.T) {
	minus1 := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"int attribute, negative", func() []byte { a := IntAttr("axis", -1); return a.marshal() }(),
			cat([]byte{0x0a, 4, 'a', 'x', 'i', 's', 0x18}, minus1, []byte{0xa0, 0x01, 2})},
		{"float attribute", func() []byte { a := FloatAttr("eps", 0.5); return a.marshal() }(),
			[]byte{0x0a, 3, 'e', 'p', 's', 0x15, 0, 0, 0, 0x3f, 0xa0, 0x01, 1}},
		{"ints attribute", func() []byte { a := IntsAttr("axes", 1, 300); return a.marshal() }(),
			[]byte{0x0a, 4, 'a', 'x', 'e', 's', 0x40, 1, 0x40, 0xac, 0x02, 0xa0, 0x01, 7}},
		{"int64 tensor", func() []byte { x := Int64Tensor("k", []int64{2}, []int64{1, -1}); return x.marshal() }(),
			cat([]byte{0x08, 2, 0x10, 7, 0x3a, 11, 1}, minus1, []byte{0x42, 1, 'k'})},
		{"float scalar", func() []byte { x := FloatTensor("f", nil, []float32{1}); return x.marshal() }(),
			[]byte{0x10, 1, 0x42, 1, 'f', 0x4a, 4, 0, 0, 0x80, 0x3f}},
		{"value info", func() []byte { v := TensorInfo("x", Float, Sym("b"), Fixed(3)); return v.marshal() }(),
			[]byte{0x0a, 1, 'x', 0x12, 15, 0x0a, 13, 0x08, 1, 0x12, 9, 0x0a, 3, 0x12, 1, 'b', 0x0a, 2, 0x08, 3}},
		{"node", func() []byte {
			n := Node{Name: "n", OpType: "Add", Inputs: []string{"a", ""}, Outputs: []string{"c"}}
			return n.marshal()
		}(), []byte{0x0a, 1, 'a', 0x0a, 0, 0x12, 1, 'c', 0x1a, 1, 'n', 0x22, 3, 'A', 'd', 'd'}},
		{"model", func() []byte {
			m := Model{IRVersion: 8, ProducerName: "p", Opsets: []OpsetID{{Version: 17}}, Graph: Graph{Name: "g"}}
			return m.Marshal()
		}(), []byte{0x08, 8, 0x12, 1, 'p', 0x3a, 3, 0x12, 1, 'g', 0x42, 2, 0x10, 17}},
	}
	for _, c := range cases {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s:\n got % x\nwant % x", c.name, c.got, c.want)
		}
	}
}

func TestBuildersAreDeterministic(t *testing.T) {
	table := []float32{0, 0, 1, 2, 3, 4}
	if !bytes.Equal(BagOfWords(table, 3, 2), BagOfWords(table, 3, 2)) {
		t.Error("BagOfWords differs between calls")
	}
	if !bytes.Equal(TinyBERT(20, 8, 7, true), TinyBERT(20, 8, 7, true)) {
		t.Error("TinyBERT differs between calls with one seed")
	}
	if bytes.Equal(TinyBERT(20, 8, 7, true), TinyBERT(20, 8, 8, true)) {
		t.Error("TinyBERT ignores its seed")
	}
}
