"""What ``oneruler score`` prints and writes: text tables and notes, figures (matplotlib), and the report folder."""
