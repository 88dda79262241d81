// Package events is the in-process event bus: the domain publishes
// (memory.added, reembed.progress, model.progress, ...) and live views
// subscribe (the API's server-sent events; later the desktop window).
package events

import (
	"sync"
	"sync/atomic"

	"hyatlas/backend/memory"
)

// Bus fans events out to subscribers. Publish never blocks: a subscriber
// that does not keep up loses events (counted in Dropped), never the
// publisher's time.
type Bus struct {
	mu      sync.Mutex
	subs    map[int]chan memory.Event
	next    int
	dropped atomic.Int64
}

// New returns an empty bus.
func New() *Bus { return &Bus{subs: map[int]chan memory.Event{}} }

// Publish sends e to every subscriber that has room for it.
func (b *Bus) Publish(e memory.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- e:
		default:
			b.dropped.Add(1)
		}
	}
}

// Subscribe returns a channel of the events published from now on, with
// room for buffer of them, and a func that ends the subscription (and
// closes the channel).
func (b *Bus) Subscribe(buffer int) (<-chan memory.Event, func()) {
	ch := make(chan memory.Event, max(1, buffer))
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = ch
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
			close(ch)
		})
	}
}

// Dropped counts events lost to slow subscribers.
func (b *Bus) Dropped() int64 { return b.dropped.Load() }

var _ memory.Publisher = (*Bus)(nil)
