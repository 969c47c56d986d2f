"""Views of a Report, each a function of its records or columns: per-config and grouped summaries, the
heatmap, accuracy by depth, effective context lengths, the sample size and the scores document."""
