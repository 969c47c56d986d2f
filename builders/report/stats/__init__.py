"""Numbers with intervals: closed-form statistics (Wilson, McNemar, Benjamini–Hochberg, sample sizes), the
cluster bootstrap over example indices, and records as numpy columns pooled into ``Cell``s."""
