"""Dataset layer: reading an export folder or a Hub dataset at a pinned commit (the one reader of rows)."""
