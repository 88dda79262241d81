package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// EmbedChoice names how memories are embedded.
type EmbedChoice string

// Embedder choices (HYATLAS_EMBED_BASE).
const (
	// EmbedAuto: BGE-small when it is installed, else the built-in GloVe
	// model. The default.
	EmbedAuto EmbedChoice = ""
	// EmbedBGE: BGE-small-en-v1.5 (install it with `hyatlas models install
	// bge-small`); GloVe until it is installed.
	EmbedBGE EmbedChoice = "bge"
	// EmbedGloVe: the built-in GloVe bag-of-words model.
	EmbedGloVe EmbedChoice = "glove"
	// EmbedLocal: the deterministic lexical test embedder (not semantic).
	EmbedLocal EmbedChoice = "local"
	// EmbedHTTP: an OpenAI-compatible /embeddings endpoint.
	EmbedHTTP EmbedChoice = "http"
)

// EmbedConfig says how memories are embedded.
type EmbedConfig struct {
	Choice EmbedChoice
	URL    string // EmbedHTTP: the endpoint's base URL (HYATLAS_EMBED_BASE)
	Model  string // EmbedHTTP: HYATLAS_EMBED_MODEL
	Key    string // EmbedHTTP: HYATLAS_EMBED_KEY (never logged)
	// ORTLib is HYATLAS_ORT_LIB: the ONNX Runtime shared library to load,
	// instead of looking next to the binary and in the data directory.
	ORTLib string
}

// DefaultEmbedModel is the model asked of an HTTP embedder when
// HYATLAS_EMBED_MODEL is unset.
const DefaultEmbedModel = "text-embedding-3-small"

// loadEmbed reads HYATLAS_EMBED_BASE: empty (BGE when installed, else
// GloVe), bge, glove, local, or an http(s) URL. Anything else is fatal.
func loadEmbed(getenv func(string) string) (EmbedConfig, error) {
	e := EmbedConfig{
		Model:  strings.TrimSpace(getenv("HYATLAS_EMBED_MODEL")),
		Key:    strings.TrimSpace(getenv("HYATLAS_EMBED_KEY")),
		ORTLib: strings.TrimSpace(getenv("HYATLAS_ORT_LIB")),
	}
	if e.ORTLib != "" {
		abs, err := filepath.Abs(e.ORTLib)
		if err != nil {
			return EmbedConfig{}, fmt.Errorf("HYATLAS_ORT_LIB: %w", err)
		}
		e.ORTLib = abs
	}
	base := strings.TrimSpace(getenv("HYATLAS_EMBED_BASE"))
	switch strings.ToLower(base) {
	case "":
		e.Choice = EmbedAuto
	case "bge":
		e.Choice = EmbedBGE
	case "glove":
		e.Choice = EmbedGloVe
	case "local", "hash":
		e.Choice = EmbedLocal
	default:
		u, err := url.Parse(base)
		if err != nil || !httpURL(u) {
			return EmbedConfig{}, fmt.Errorf("HYATLAS_EMBED_BASE: %q is not bge, glove, local or an http(s) URL", base)
		}
		e.Choice, e.URL = EmbedHTTP, strings.TrimRight(base, "/")
		if e.Model == "" {
			e.Model = DefaultEmbedModel
		}
	}
	return e, nil
}
