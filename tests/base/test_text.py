"""Words for counts (base/text.py)."""

from builders.base.text import plural


def test_one_is_singular_and_every_other_count_plural_with_thousands_separated():
    assert [plural(n, "config") for n in (0, 1, 2, 1234)] == ["0 configs", "1 config", "2 configs", "1,234 configs"]
    assert plural(1, "index", "indices") == "1 index" and plural(3, "index", "indices") == "3 indices"
