package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"hyatlas/backend/memory"
)

// LoCoMo (Maharana et al., ACL 2024) is ten long conversations between two
// people, each with questions whose evidence is a set of turns. Its
// licence (CC BY-NC 4.0) allows evaluation only: the data is read from
// where the user put it and never copied into the repository.

// LoCoMoSource says where to get the data.
const LoCoMoSource = "https://github.com/snap-research/LoCoMo (file data/locomo10.json; CC BY-NC 4.0, evaluation only)"

// ErrNoLoCoMo means the LoCoMo file is not where it was looked for.
var ErrNoLoCoMo = errors.New("LoCoMo data not found")

// locomoDate is the layout of a session's date_time ("1:56 pm on 8 May, 2023").
const locomoDate = "3:04 pm on 2 January, 2006"

// categoryNames names the question categories that are evaluated; 5
// (adversarial: the answer is not in the conversation) is left out.
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// categoryOrder is the order categories are printed in.
var categoryOrder = []int{1, 2, 3, 4}

// conversation is one LoCoMo sample, ready to ingest and evaluate.
type conversation struct {
	ID        string // sample_id: the owner's user id
	Turns     []turn // in session order, then turn order
	Questions []question
	// Skipped counts the questions of categories 1-4 left out because none
	// of their evidence ids names a turn; Unknown counts such ids.
	Skipped, Unknown int
}

// turn is one utterance, dated by its session.
type turn struct {
	DiaID   string // normalised: "D<session>:<turn>"
	Session string // "session_<n>"
	At      time.Time
	Text    string // "<speaker>: <text>" [+ " [shares an image: <caption>]"]
}

// question is one evaluated question.
type question struct {
	Text     string
	Category int
	Evidence []string // normalised dia ids, each naming a turn of the conversation
}

type locomoSample struct {
	ID           string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// loadLoCoMo reads the first limit conversations of a locomo10.json (all
// when limit <= 0) and the hex sha256 of the file. A missing file gives an
// error wrapping ErrNoLoCoMo.
func loadLoCoMo(path string, limit int) ([]conversation, string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%w at %s", ErrNoLoCoMo, path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("read LoCoMo data: %w", err)
	}
	sum := sha256.Sum256(b)
	var samples []locomoSample
	if err := json.Unmarshal(b, &samples); err != nil {
		return nil, "", fmt.Errorf("parse LoCoMo data %s: %w", path, err)
	}
	if limit > 0 && limit < len(samples) {
		samples = samples[:limit]
	}
	convs := make([]conversation, 0, len(samples))
	for _, s := range samples {
		c, err := parseConversation(s)
		if err != nil {
			return nil, "", fmt.Errorf("LoCoMo sample %s: %w", s.ID, err)
		}
		convs = append(convs, c)
	}
	return convs, hex.EncodeToString(sum[:]), nil
}

// parseConversation orders the sessions by number, dates each turn i of a
// session at the session's date_time plus i seconds, and keeps the
// questions of categories 1-4 with evidence.
func parseConversation(s locomoSample) (conversation, error) {
	c := conversation{ID: s.ID}
	if strings.TrimSpace(s.ID) == "" {
		return c, errors.New("no sample_id")
	}
	var keys []string
	nums := map[string]int{}
	for k := range s.Conversation {
		rest, ok := strings.CutPrefix(k, "session_")
		if n, err := strconv.Atoi(rest); ok && err == nil {
			keys, nums[k] = append(keys, k), n
		}
	}
	sort.Slice(keys, func(i, j int) bool { return nums[keys[i]] < nums[keys[j]] })
	known := map[string]bool{}
	for _, k := range keys {
		var ts []locomoTurn
		if err := json.Unmarshal(s.Conversation[k], &ts); err != nil {
			return c, fmt.Errorf("parse %s: %w", k, err)
		}
		if len(ts) == 0 {
			continue
		}
		var when string
		if err := json.Unmarshal(s.Conversation[k+"_date_time"], &when); err != nil {
			return c, fmt.Errorf("read %s_date_time: %w", k, err)
		}
		at, err := time.Parse(locomoDate, strings.TrimSpace(when))
		if err != nil {
			return c, fmt.Errorf("parse %s_date_time: %w", k, err)
		}
		for i, t := range ts {
			id, ok := normDiaID(t.DiaID)
			if !ok {
				return c, fmt.Errorf("%s turn %d: bad dia_id %q", k, i, t.DiaID)
			}
			text := t.Speaker + ": " + t.Text
			if t.Caption != "" {
				text += " [shares an image: " + t.Caption + "]"
			}
			c.Turns = append(c.Turns, turn{DiaID: id, Session: k, At: at.Add(time.Duration(i) * time.Second), Text: text})
			known[id] = true
		}
	}
	for _, q := range s.QA {
		if categoryNames[q.Category] == "" {
			continue
		}
		var ev []string
		unknown := 0
		for _, id := range splitEvidence(q.Evidence) {
			if known[id] {
				ev = append(ev, id)
			} else {
				unknown++
			}
		}
		c.Unknown += unknown
		if len(ev) == 0 {
			c.Skipped++
			continue
		}
		c.Questions = append(c.Questions, question{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	return c, nil
}

// splitEvidence normalises a question's evidence list: an entry may hold
// several ids separated by ';' or spaces ("D1:3; D1:4", "D9:1 D4:4").
// Ids that cannot be read are kept as they are (they name no turn, so the
// caller counts them as unknown).
func splitEvidence(evidence []string) []string {
	var out []string
	for _, e := range evidence {
		for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || unicode.IsSpace(r) }) {
			if id, ok := normDiaID(f); ok {
				out = append(out, id)
			} else {
				out = append(out, f)
			}
		}
	}
	return out
}

// normDiaID reads "D<session>:<turn>" and writes it back canonically:
// numbers without leading zeros ("D30:05" is "D30:5"), and a stray colon
// after the D dropped ("D:11:26" is "D11:26").
func normDiaID(s string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "D")
	if !ok {
		return "", false
	}
	a, b, ok := strings.Cut(strings.TrimPrefix(rest, ":"), ":")
	if !ok {
		return "", false
	}
	sess, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || sess < 0 || n < 0 {
		return "", false
	}
	return fmt.Sprintf("D%d:%d", sess, n), true
}

// clock is a settable time source for memory.Deps.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// ingested maps a conversation's turns to the memories that hold them.
type ingested struct {
	memoryOf  map[string]string // dia id -> memory id
	sessionOf map[string]string // memory id -> session key
	last      time.Time         // the last turn's time
}

// ingest stores every turn of c, in order, through svc.Add as a memory of
// the owner c.ID in the turn's session, with the clock set to the turn's
// time before each Add.
func ingest(ctx context.Context, svc *memory.Service, clk *clock, c conversation) (ingested, error) {
	in := ingested{memoryOf: map[string]string{}, sessionOf: map[string]string{}}
	for _, t := range c.Turns {
		clk.Set(t.At)
		res, err := svc.Add(ctx, memory.AddInput{Text: t.Text, Owner: memory.Owner{UserID: c.ID}, SessionID: t.Session})
		if err != nil {
			return in, fmt.Errorf("add %s %s: %w", c.ID, t.DiaID, err)
		}
		in.memoryOf[t.DiaID] = res.Memory.ID
		in.sessionOf[res.Memory.ID] = t.Session
		in.last = t.At
	}
	return in, nil
}
