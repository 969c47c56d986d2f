"""Sources layer: the pinned upstream files (manifests, fetching, parsing, per-language fixes)."""
