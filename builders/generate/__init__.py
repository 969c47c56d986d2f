"""Generate layer: tokenizers, segmentation, randomness, budget fitting, NIAH and CWE rows."""
