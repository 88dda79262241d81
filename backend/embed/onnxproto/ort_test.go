package onnxproto

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// TestMain loads ONNX Runtime once: from HYATLAS_ORT_LIB, else from the
// copy `make deps` puts under build/cache.
func TestMain(m *testing.M) {
	os.Exit(runWithORT(m))
}

func runWithORT(m *testing.M) int {
	lib := os.Getenv("HYATLAS_ORT_LIB")
	if lib == "" {
		lib = filepath.FromSlash("../../../build/cache/ort/lib/libonnxruntime.so.1")
	}
	if _, err := os.Stat(lib); err != nil {
		fmt.Fprintln(os.Stderr, "set HYATLAS_ORT_LIB or run make deps:", err)
		return 1
	}
	cache, err := os.MkdirTemp("", "onnxproto-xdg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(cache)
	os.Setenv("XDG_CACHE_HOME", cache) // ORT writes a device-id file there
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		fmt.Fprintln(os.Stderr, "onnxruntime:", err)
		return 1
	}
	defer ort.DestroyEnvironment()
	if err := ort.DisableTelemetry(); err != nil {
		fmt.Fprintln(os.Stderr, "onnxruntime:", err)
		return 1
	}
	return m.Run()
}

// runModel runs model on INT64 [batch, seq] inputs (in the order of names)
// and returns its single FLOAT output and that output's shape.
func runModel(t *testing.T, model []byte, output string, names []string, batch, seq int, inputs ...[]int64) ([]float32, []int64) {
	t.Helper()
	if len(names) != len(inputs) {
		t.Fatalf("%d names for %d inputs", len(names), len(inputs))
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, names, []string{output}, nil)
	if err != nil {
		t.Fatalf("load model: %v", err)
	}
	defer s.Destroy()
	values := make([]ort.Value, len(inputs))
	for i, in := range inputs {
		v, err := ort.NewTensor(ort.NewShape(int64(batch), int64(seq)), in)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Destroy()
		values[i] = v
	}
	outs := []ort.Value{nil}
	if err := s.Run(values, outs); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer outs[0].Destroy()
	out, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		t.Fatalf("output is %T, want *ort.Tensor[float32]", outs[0])
	}
	return append([]float32(nil), out.GetData()...), append([]int64(nil), out.GetShape()...)
}

// pad lays out ragged rows as [len(rows), maxLen] ids and mask, padding
// with id pad and mask 0.
func pad(rows [][]int64, padID int64) (ids, mask []int64, seq int) {
	for _, r := range rows {
		seq = max(seq, len(r))
	}
	seq = max(seq, 1)
	for _, r := range rows {
		for j := range seq {
			if j < len(r) {
				ids, mask = append(ids, r[j]), append(mask, 1)
			} else {
				ids, mask = append(ids, padID), append(mask, 0)
			}
		}
	}
	return ids, mask, seq
}

func TestDeclaredInputsOutputs(t *testing.T) {
	table := make([]float32, 5*3)
	cases := []struct {
		name    string
		model   []byte
		inputs  []string
		output  string
		outRank int
	}{
		{"bag of words", BagOfWords(table, 5, 3), []string{"input_ids", "attention_mask"}, "sentence_embedding", 2},
		{"tiny bert", TinyBERT(11, 4, 1, false), []string{"input_ids", "attention_mask"}, "last_hidden_state", 3},
		{"tiny bert with types", TinyBERT(11, 4, 1, true), []string{"input_ids", "attention_mask", "token_type_ids"}, "last_hidden_state", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins, outs, err := ort.GetInputOutputInfoWithONNXData(c.model)
			if err != nil {
				t.Fatal(err)
			}
			if len(ins) != len(c.inputs) {
				t.Fatalf("inputs %v, want %v", ins, c.inputs)
			}
			for i, in := range ins {
				if in.Name != c.inputs[i] || in.DataType != ort.TensorElementDataTypeInt64 ||
					in.OrtValueType != ort.ONNXTypeTensor || len(in.Dimensions) != 2 {
					t.Errorf("input %d = %+v, want %s INT64 rank 2", i, in, c.inputs[i])
				}
			}
			if len(outs) != 1 || outs[0].Name != c.output || outs[0].DataType != ort.TensorElementDataTypeFloat ||
				len(outs[0].Dimensions) != c.outRank {
				t.Fatalf("outputs %+v, want %s FLOAT rank %d", outs, c.output, c.outRank)
			}
		})
	}
}
