"""A stand-in for Hermes's agent package: just what a memory provider imports."""
