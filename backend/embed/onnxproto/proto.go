// Package onnxproto writes ONNX models: a small, dependency-free protobuf
// encoder for the subset of onnx.proto that HyAtlas needs to build its
// embedding models in Go (there is no Python at build time), plus builders
// for those models. It only encodes; it never parses.
//
// Field numbers and enum values are those of the public onnx.proto
// (github.com/onnx/onnx, onnx/onnx.proto; they are stable across IR
// versions):
//
//	ModelProto:          ir_version=1 producer_name=2 graph=7 opset_import=8
//	OperatorSetIdProto:  domain=1 version=2
//	GraphProto:          node=1 name=2 initializer=5 input=11 output=12
//	NodeProto:           input=1 output=2 name=3 op_type=4 attribute=5 domain=7
//	AttributeProto:      name=1 f=2 i=3 floats=7 ints=8 type=20
//	  AttributeType:     FLOAT=1 INT=2 FLOATS=6 INTS=7
//	TensorProto:         dims=1 data_type=2 int64_data=7 (packed) name=8 raw_data=9
//	  DataType:          FLOAT=1 INT64=7
//	ValueInfoProto:      name=1 type=2
//	TypeProto:           tensor_type=1
//	TypeProto.Tensor:    elem_type=1 shape=2
//	TensorShapeProto:    dim=1
//	  Dimension:         dim_value=1 dim_param=2
package onnxproto

import (
	"encoding/binary"
	"math"
)

// DataType is TensorProto.DataType.
type DataType int32

// The element types used here.
const (
	Float DataType = 1
	Int64 DataType = 7
)

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute types used here.
const (
	AttrFloat  AttrType = 1
	AttrInt    AttrType = 2
	AttrFloats AttrType = 6
	AttrInts   AttrType = 7
)

// Model is a ModelProto.
type Model struct {
	IRVersion    int64
	ProducerName string
	Opsets       []OpsetID
	Graph        Graph
}

// OpsetID is an OperatorSetIdProto; an empty Domain is the default ONNX
// operator set.
type OpsetID struct {
	Domain  string
	Version int64
}

// Graph is a GraphProto. Nodes must be in topological order.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
}

// Node is a NodeProto in the default domain.
type Node struct {
	Name    string
	OpType  string
	Inputs  []string
	Outputs []string
	Attrs   []Attribute
}

// Attribute is an AttributeProto; Type selects which value is written.
type Attribute struct {
	Name   string
	Type   AttrType
	I      int64
	F      float32
	Ints   []int64
	Floats []float32
}

// IntAttr, IntsAttr, FloatAttr and FloatsAttr build typed attributes.
func IntAttr(name string, v int64) Attribute { return Attribute{Name: name, Type: AttrInt, I: v} }

// IntsAttr is a list-of-ints attribute.
func IntsAttr(name string, v ...int64) Attribute {
	return Attribute{Name: name, Type: AttrInts, Ints: v}
}

// FloatAttr is a float attribute.
func FloatAttr(name string, v float32) Attribute {
	return Attribute{Name: name, Type: AttrFloat, F: v}
}

// FloatsAttr is a list-of-floats attribute.
func FloatsAttr(name string, v ...float32) Attribute {
	return Attribute{Name: name, Type: AttrFloats, Floats: v}
}

// Tensor is a TensorProto. Float tensors are written as little-endian
// raw_data, Int64 tensors as packed int64_data. No Dims means a scalar.
type Tensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	Floats   []float32 // for Float
	Int64s   []int64   // for Int64
}

// FloatTensor and Int64Tensor build typed tensors.
func FloatTensor(name string, dims []int64, data []float32) Tensor {
	return Tensor{Name: name, DataType: Float, Dims: dims, Floats: data}
}

// Int64Tensor is an INT64 tensor.
func Int64Tensor(name string, dims []int64, data []int64) Tensor {
	return Tensor{Name: name, DataType: Int64, Dims: dims, Int64s: data}
}

// ValueInfo is a ValueInfoProto of tensor type.
type ValueInfo struct {
	Name     string
	ElemType DataType
	Shape    []Dim
}

// Dim is one dimension: a fixed Value, or a symbolic Param when Param != "".
type Dim struct {
	Value int64
	Param string
}

// TensorInfo describes a tensor input or output.
func TensorInfo(name string, elem DataType, shape ...Dim) ValueInfo {
	return ValueInfo{Name: name, ElemType: elem, Shape: shape}
}

// Sym is a symbolic dimension ("batch", "seq"); Fixed a fixed one.
func Sym(name string) Dim { return Dim{Param: name} }

// Fixed is a fixed-size dimension.
func Fixed(n int64) Dim { return Dim{Value: n} }

// Marshal encodes the model in protobuf wire format.
func (m *Model) Marshal() []byte {
	var b buf
	b.varintField(1, uint64(m.IRVersion))
	b.stringField(2, m.ProducerName)
	b.bytesField(7, m.Graph.marshal())
	for _, o := range m.Opsets {
		var ob buf
		ob.stringField(1, o.Domain)
		ob.varintField(2, uint64(o.Version))
		b.bytesField(8, ob)
	}
	return b
}

func (g *Graph) marshal() []byte {
	var b buf
	for i := range g.Nodes {
		b.bytesField(1, g.Nodes[i].marshal())
	}
	b.stringField(2, g.Name)
	for i := range g.Initializers {
		b.bytesField(5, g.Initializers[i].marshal())
	}
	for i := range g.Inputs {
		b.bytesField(11, g.Inputs[i].marshal())
	}
	for i := range g.Outputs {
		b.bytesField(12, g.Outputs[i].marshal())
	}
	return b
}

func (n *Node) marshal() []byte {
	var b buf
	for _, s := range n.Inputs {
		b.bytesField(1, []byte(s)) // repeated: empty names (absent optional inputs) count
	}
	for _, s := range n.Outputs {
		b.bytesField(2, []byte(s))
	}
	b.stringField(3, n.Name)
	b.stringField(4, n.OpType)
	for i := range n.Attrs {
		b.bytesField(5, n.Attrs[i].marshal())
	}
	return b
}

func (a *Attribute) marshal() []byte {
	var b buf
	b.stringField(1, a.Name)
	switch a.Type {
	case AttrFloat:
		b.tag(2, wireFixed32)
		b.fixed32(math.Float32bits(a.F))
	case AttrInt:
		b.tag(3, wireVarint)
		b.varint(uint64(a.I))
	case AttrFloats:
		for _, f := range a.Floats { // not packed in onnx.proto (proto2)
			b.tag(7, wireFixed32)
			b.fixed32(math.Float32bits(f))
		}
	case AttrInts:
		for _, v := range a.Ints {
			b.tag(8, wireVarint)
			b.varint(uint64(v))
		}
	}
	b.tag(20, wireVarint)
	b.varint(uint64(a.Type))
	return b
}

func (t *Tensor) marshal() []byte {
	var b buf
	for _, d := range t.Dims {
		b.tag(1, wireVarint)
		b.varint(uint64(d))
	}
	b.tag(2, wireVarint)
	b.varint(uint64(t.DataType))
	if t.DataType == Int64 {
		var p buf
		for _, v := range t.Int64s {
			p.varint(uint64(v))
		}
		b.bytesField(7, p) // packed
	}
	b.stringField(8, t.Name)
	if t.DataType == Float {
		raw := make([]byte, 4*len(t.Floats))
		for i, f := range t.Floats {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
		}
		b.bytesField(9, raw)
	}
	return b
}

func (v *ValueInfo) marshal() []byte {
	var shape buf
	for _, d := range v.Shape {
		var db buf
		if d.Param != "" {
			db.stringField(2, d.Param)
		} else {
			db.tag(1, wireVarint)
			db.varint(uint64(d.Value))
		}
		shape.bytesField(1, db)
	}
	var tt buf
	tt.tag(1, wireVarint)
	tt.varint(uint64(v.ElemType))
	tt.bytesField(2, shape) // present even when empty: a scalar, not unknown rank
	var typ buf
	typ.bytesField(1, tt)
	var b buf
	b.stringField(1, v.Name)
	b.bytesField(2, typ)
	return b
}

// Protobuf wire types.
const (
	wireVarint  = 0
	wireBytes   = 2
	wireFixed32 = 5
)

type buf []byte

func (b *buf) varint(v uint64) {
	for v >= 0x80 {
		*b = append(*b, byte(v)|0x80)
		v >>= 7
	}
	*b = append(*b, byte(v))
}

func (b *buf) tag(field, wire int) { b.varint(uint64(field)<<3 | uint64(wire)) }

func (b *buf) fixed32(v uint32) { *b = binary.LittleEndian.AppendUint32(*b, v) }

func (b *buf) bytesField(field int, p []byte) {
	b.tag(field, wireBytes)
	b.varint(uint64(len(p)))
	*b = append(*b, p...)
}

// varintField and stringField skip zero values (proto2 optional, unset).
func (b *buf) varintField(field int, v uint64) {
	if v != 0 {
		b.tag(field, wireVarint)
		b.varint(v)
	}
}

func (b *buf) stringField(field int, s string) {
	if s != "" {
		b.bytesField(field, []byte(s))
	}
}
