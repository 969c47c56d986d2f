"""``oneruler compare``: report folders read back into Reports, the tables and figure data side by side,
paired tests of every pair of models, and the comparison folder."""
