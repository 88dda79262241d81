package models

// DefaultBaseURL is where catalog file URLs are resolved unless
// Manager.BaseURL says otherwise. It is the only place the host is written.
const DefaultBaseURL = "https://huggingface.co/"

// Model is a catalog entry: an embedding model and the files it needs.
type Model struct {
	Name        string // short id, also the directory name ("bge-small")
	Title       string
	Description string
	License     string
	Dims        int // vector dimensions
	Files       []File
}

// File is one downloadable file of a model.
type File struct {
	Name   string // local file name ("model.onnx")
	URL    string // path relative to the base URL, or an absolute http(s) URL
	SHA256 string // hex; an empty checksum refuses the install
	Size   int64  // bytes; 0 means unknown (only the checksum is checked)
}

// bgeRevision pins the Hugging Face commit of Xenova/bge-small-en-v1.5 the
// files are fetched from, so an upstream change can never swap them.
const bgeRevision = "ea104dacec62c0de699686887e3f920caeb4f3e3"

// bgeModelSHA256 and bgeModelSize pin bge-small's onnx/model.onnx (the
// full-precision export): the Git LFS object id Hugging Face publishes for
// the file, the same in several independent manifests that pin it. A
// download that does not match is refused.
const (
	bgeModelSHA256       = "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35"
	bgeModelSize   int64 = 133093490
)

// DefaultCatalog returns a fresh copy of the built-in catalog.
func DefaultCatalog() []Model {
	return []Model{{
		Name:        "bge-small",
		Title:       "BGE small (English)",
		Description: "BAAI bge-small-en-v1.5, a small English embedding model (ONNX, 133 MB).",
		License:     "MIT",
		Dims:        384,
		Files: []File{
			{
				Name:   "model.onnx",
				URL:    "Xenova/bge-small-en-v1.5/resolve/" + bgeRevision + "/onnx/model.onnx",
				SHA256: bgeModelSHA256,
				Size:   bgeModelSize,
			},
			{
				Name:   "vocab.txt",
				URL:    "Xenova/bge-small-en-v1.5/resolve/" + bgeRevision + "/vocab.txt",
				SHA256: "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
				Size:   231508,
			},
		},
	}}
}
