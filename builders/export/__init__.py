"""Export layer: Parquet shards, the export manifest, builds, the dataset card, verify, Hub upload."""
