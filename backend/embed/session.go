package embed

import (
	"fmt"
	"slices"

	ort "github.com/yalue/onnxruntime_go"
)

// session is one loaded ONNX model. ONNX Runtime allows concurrent Run
// calls on one session, so a session is shared by every caller: there is
// no lock around it.
type session struct {
	s       *ort.DynamicAdvancedSession
	inputs  []string // the inputs this model declares, in our order
	outputs []string
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
// ones are used) and returns the float32 output with its shape.
func (s *session) run(batch, seq int, feeds map[string][]int64) ([]float32, ort.Shape, error) {
	shape := ort.NewShape(int64(batch), int64(seq))
	values := make([]ort.Value, len(s.inputs))
	defer func() {
		for _, v := range values {
			if v != nil {
				_ = v.Destroy()
			}
		}
	}()
	for i, name := range s.inputs {
		t, err := ort.NewTensor(shape, feeds[name])
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", name, err)
		}
		values[i] = t
	}
	out := []ort.Value{nil}
	if err := s.s.Run(values, out); err != nil {
		return nil, nil, fmt.Errorf("run the model: %w", err)
	}
	defer out[0].Destroy()
	t, ok := out[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("the model's output is not float32")
	}
	return slices.Clone(t.GetData()), t.GetShape().Clone(), nil
}

func (s *session) close() error { return s.s.Destroy() }
