package memory

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// contactSaveEvery is how often, at most, a client's calls write its last
// contact to the store; Flush (at every clean stop) writes the latest.
const contactSaveEvery = time.Minute

// contacts are the last calls of named clients (the Hermes plugin), kept
// across restarts in the store's counters as unix milliseconds.
type contacts struct {
	mu   sync.Mutex
	last map[string]contact
}

type contact struct {
	at    time.Time // the last call
	saved time.Time // the last call written to the store
}

func contactCounter(client string) string { return "contact:" + client }

// NoteContact records a call from client now. The store learns of it at
// once on the first call and then at most once a minute; Flush writes the
// latest.
func (s *Service) NoteContact(ctx context.Context, client string) error {
	now := s.now().UTC().Truncate(time.Millisecond) // as the store keeps it
	s.contacts.mu.Lock()
	if s.contacts.last == nil {
		s.contacts.last = map[string]contact{}
	}
	c := s.contacts.last[client]
	c.at = now
	save := now.Sub(c.saved) >= contactSaveEvery
	if save {
		c.saved = now
	}
	s.contacts.last[client] = c
	s.contacts.mu.Unlock()
	if !save {
		return nil
	}
	if err := s.store.RaiseCounter(ctx, contactCounter(client), now.UnixMilli()); err != nil {
		return fmt.Errorf("note contact of %s: %w", client, err)
	}
	return nil
}

// LastContact is client's last call, from this run or an earlier one;
// false when it never called.
func (s *Service) LastContact(ctx context.Context, client string) (time.Time, bool, error) {
	s.contacts.mu.Lock()
	c := s.contacts.last[client]
	s.contacts.mu.Unlock()
	if !c.at.IsZero() {
		return c.at, true, nil
	}
	ms, err := s.store.Counter(ctx, contactCounter(client))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read last contact of %s: %w", client, err)
	}
	if ms <= 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(ms).UTC(), true, nil
}

// flushContacts writes the calls not yet written.
func (s *Service) flushContacts(ctx context.Context) error {
	due := map[string]time.Time{}
	s.contacts.mu.Lock()
	for name, c := range s.contacts.last {
		if c.at.After(c.saved) {
			due[name] = c.at
		}
	}
	s.contacts.mu.Unlock()
	for name, at := range due {
		if err := s.store.RaiseCounter(ctx, contactCounter(name), at.UnixMilli()); err != nil {
			return fmt.Errorf("flush contact of %s: %w", name, err)
		}
		s.contacts.mu.Lock()
		if c := s.contacts.last[name]; c.saved.Before(at) {
			c.saved = at
			s.contacts.last[name] = c
		}
		s.contacts.mu.Unlock()
	}
	return nil
}
