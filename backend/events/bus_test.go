package events

import (
	"sync"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestBus_FanOutAndUnsubscribe(t *testing.T) {
	b := New()
	a, stopA := b.Subscribe(8)
	c, stopC := b.Subscribe(8)
	b.Publish(memory.Event{Type: "memory.added"})
	for _, ch := range []<-chan memory.Event{a, c} {
		if e := <-ch; e.Type != "memory.added" {
			t.Errorf("got %v", e)
		}
	}
	stopA()
	stopA() // twice is fine
	if _, open := <-a; open {
		t.Error("channel still open after unsubscribe")
	}
	b.Publish(memory.Event{Type: "memory.retired"})
	if e := <-c; e.Type != "memory.retired" {
		t.Errorf("got %v", e)
	}
	stopC()
}

// TestBus_SlowSubscriberNeverBlocks: a full subscriber loses events; the
// publisher goes on.
func TestBus_SlowSubscriberNeverBlocks(t *testing.T) {
	b := New()
	_, stop := b.Subscribe(1)
	defer stop()
	done := make(chan struct{})
	go func() {
		for range 100 {
			b.Publish(memory.Event{Type: "x"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	if b.Dropped() != 99 {
		t.Errorf("dropped %d, want 99", b.Dropped())
	}
}

func TestBus_ConcurrentUse(t *testing.T) {
	b := New()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Publish(memory.Event{Type: "x"})
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				ch, stop := b.Subscribe(4)
				select {
				case <-ch:
				default:
				}
				stop()
			}
		}()
	}
	wg.Wait()
}
