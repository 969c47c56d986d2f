"""Report layer: predictions joined to dataset rows, scored, aggregated, rendered as tables and figures."""
