"""Base layer: errors with exit codes, atomic file writes and hashing, progress output."""
