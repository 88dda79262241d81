package embed

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// session is one loaded ONNX model. ONNX Runtime allows concurrent Run
// calls on one session, so a session is shared by every caller: there is
// no lock around it.
type session struct {
	s       *ort.DynamicAdvancedSession
	inputs  []string // the inputs this model declares, in our order
	outputs []string
	// runNanos adds up the time spent inside ORT's Run, so benchmarks can
	// tell the model's share of an embedding from ours.
	runNanos atomic.Int64
}

// SessionOptions are the runtime settings every model uses. IntraOp is the
// number of threads one Run may use (0 lets ORT decide).
type SessionOptions struct {
	IntraOp int
}

// newSession loads a model, asking for the wanted inputs that the graph
// declares (optional ones it lacks are left out) and the output.
func newSession(model []byte, required, optional []string, output string, o SessionOptions) (*session, error) {
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, fmt.Errorf("read the model's inputs: %w", err)
	}
	declared := func(infos []ort.InputOutputInfo, name string) bool {
		return slices.ContainsFunc(infos, func(i ort.InputOutputInfo) bool { return i.Name == name })
	}
	var inputs []string
	for _, name := range required {
		if !declared(ins, name) {
			return nil, fmt.Errorf("the model has no input %q", name)
		}
		inputs = append(inputs, name)
	}
	for _, name := range optional {
		if declared(ins, name) {
			inputs = append(inputs, name)
		}
	}
	if !declared(outs, output) {
		return nil, fmt.Errorf("the model has no output %q", output)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	defer opts.Destroy()
	if o.IntraOp > 0 {
		if err := opts.SetIntraOpNumThreads(o.IntraOp); err != nil {
			return nil, fmt.Errorf("session options: %w", err)
		}
		if err := opts.SetInterOpNumThreads(1); err != nil {
			return nil, fmt.Errorf("session options: %w", err)
		}
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, inputs, []string{output}, opts)
	if err != nil {
		return nil, fmt.Errorf("load the model: %w", err)
	}
	return &session{s: s, inputs: inputs, outputs: []string{output}}, nil
}

// has reports whether the session feeds the named input.
func (s *session) has(input string) bool { return slices.Contains(s.inputs, input) }

// run feeds int64 inputs of shape [batch, seq] (by name; only the declared
// ones are used) and hands the float32 output and its shape to use, which
// must copy what it keeps: the output is freed when use returns (a BERT
// model's output is tokens × hidden size; only a few rows are needed).
//
// An input tensor is made over the Go slice, and ORT keeps that pointer
// until the tensor is destroyed: cgo allows C to keep a Go pointer only
// while it is pinned, so each input stays pinned until its tensor is gone.
func (s *session) run(batch, seq int, feeds map[string][]int64, use func([]float32, ort.Shape) error) error {
	shape := ort.NewShape(int64(batch), int64(seq))
	var pins runtime.Pinner
	defer pins.Unpin() // deferred first, so it runs after the tensors are destroyed
	values := make([]ort.Value, len(s.inputs))
	defer func() {
		for _, v := range values {
			if v != nil {
				_ = v.Destroy()
			}
		}
	}()
	for i, name := range s.inputs {
		data := feeds[name]
		if len(data) > 0 {
			pins.Pin(&data[0])
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return fmt.Errorf("input %s: %w", name, err)
		}
		values[i] = t
	}
	out := []ort.Value{nil}
	start := time.Now()
	err := s.s.Run(values, out)
	s.runNanos.Add(int64(time.Since(start)))
	if err != nil {
		return fmt.Errorf("run the model: %w", err)
	}
	defer out[0].Destroy()
	t, ok := out[0].(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("the model's output is not float32")
	}
	return use(t.GetData(), t.GetShape())
}

func (s *session) close() error { return s.s.Destroy() }

// ModelTimer reports the time a model spent inside ONNX Runtime so far.
type ModelTimer interface {
	ModelTime() time.Duration
}

// ModelTime implements ModelTimer.
func (g *GloVe) ModelTime() time.Duration { return time.Duration(g.s.runNanos.Load()) }

// ModelTime implements ModelTimer.
func (b *BGE) ModelTime() time.Duration { return time.Duration(b.s.runNanos.Load()) }

// NewBGEFromBytes builds a BGE-style embedder from model bytes and a
// vocab.txt (benchmarks use BERT-shaped test models).
func NewBGEFromBytes(model, vocabTxt []byte, id string, o SessionOptions) (*BGE, error) {
	return newBGE(model, vocabTxt, id, o)
}
