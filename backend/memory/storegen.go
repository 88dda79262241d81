package memory

import "fmt"

// generation is the store generation: note it before reading what a
// piece of background work (an extraction, a consolidation pass, a
// summary) works on, and write its result with commit or writeGen.
func (s *Service) generation() uint64 { return s.storeGen.Load() }

// checkGen returns ErrStoreReplaced when a restore replaced the store
// since gen was noted. The caller holds indexSync (either way), which
// ReplaceStore takes to move the generation: the check holds until the
// caller's write is done.
func (s *Service) checkGen(gen uint64) error {
	if now := s.storeGen.Load(); now != gen {
		return fmt.Errorf("data read before restore %d, now %d: %w", gen, now, ErrStoreReplaced)
	}
	return nil
}

// writeGen runs write, a write of background state that is not a memory
// (a cluster's progress, an episode's summary mark), if no restore
// replaced the store since gen was noted, and keeps restores out until it
// is done. write must not take indexSync.
func (s *Service) writeGen(gen uint64, write func() error) error {
	s.indexSync.RLock()
	defer s.indexSync.RUnlock()
	if err := s.checkGen(gen); err != nil {
		return err
	}
	return write()
}
