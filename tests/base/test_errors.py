"""One line for every OS error: the path, what happened, what would fix it."""

from __future__ import annotations

import errno

import pytest

from builders.base.errors import describe_os_error, os_errno


@pytest.mark.parametrize("code, what, fix", [
    (errno.EACCES, "permission denied", "writable"),
    (errno.EROFS, "read-only file system", "writable file system"),
    (errno.ENOSPC, "no space left", "free some space"),
    (errno.EDQUOT, "quota", "free some space"),
    (errno.EFBIG, "file-size limit", "ulimit -f"),
    (errno.ENOTDIR, "is a file, not a folder", "check the path"),
])
def test_each_errno_names_the_path_and_a_fix(code, what, fix):
    line = describe_os_error(OSError(code, "raw text", "/data/out"))
    assert line.startswith("/data/out: ") and what in line and fix in line
    assert "\n" not in line and "Errno" not in line


def test_errors_without_a_path_or_a_known_errno_stay_readable():
    assert describe_os_error(OSError(errno.ENOSPC, "No space left on device")).startswith("no space left")
    assert describe_os_error(OSError(errno.EXDEV, "Invalid cross-device link", "a", None, "b")) == "a -> b: Invalid cross-device link"
    assert os_errno(OSError("IOError: Error writing bytes. Detail: [errno 28] No space left")) == errno.ENOSPC
    assert os_errno(OSError("no number here")) is None


def test_a_setting_error_names_the_setting_and_the_cli_words_it_as_its_flag():
    from builders.base.errors import SettingError
    from builders.cli.handler import SETTING_FLAGS, flag_of

    exc = SettingError("max_failed", "must be a count or a share (got 'x')")
    assert str(exc) == "max_failed must be a count or a share (got 'x')"
    assert exc.worded(flag_of) == "--max-failed must be a count or a share (got 'x')"
    SETTING_FLAGS["records"] = "--out"
    try:
        assert SettingError("records", "is required").worded(flag_of) == "--out is required"
    finally:
        del SETTING_FLAGS["records"]


def test_only_whole_setting_names_are_worded_as_flags():
    from builders.base.errors import OneRulerError
    from builders.cli.handler import flag_of

    exc = OneRulerError("pass skip_overlong to run the rest (not skip_overlong_rows, not my-skip_overlong)",
                        settings=("skip_overlong",))
    assert exc.worded(flag_of) == "pass --skip-overlong to run the rest (not skip_overlong_rows, not my-skip_overlong)"
    assert OneRulerError("plain").worded(flag_of) == "plain" and OneRulerError("plain").settings == ()


def test_a_named_setting_is_worded_where_it_stands_only():
    import pickle

    from builders.base.errors import OneRulerError, SettingError, named_setting
    from builders.cli.handler import flag_of

    exc = OneRulerError(f"{named_setting('out')} /srv/out: one seed per export; pass {named_setting('seed')} 7")
    assert str(exc) == "out /srv/out: one seed per export; pass seed 7" and exc.settings == ("out", "seed")
    assert exc.worded(flag_of) == "--out /srv/out: one seed per export; pass --seed 7"
    assert exc.worded(str) == str(exc) and "\x00" not in repr(exc)
    for sent in (exc, SettingError("num_proc", "must be at least 1 (got 0)")):  # as a worker process sends it
        back = pickle.loads(pickle.dumps(sent))
        assert type(back) is type(sent) and str(back) == str(sent) and back.worded(flag_of) == sent.worded(flag_of)
    assert pickle.loads(pickle.dumps(SettingError("wait", "must be 0"))).setting == "wait"


def test_a_setting_error_words_its_setting_where_it_stands_not_in_a_path():
    from builders.base.errors import SettingError
    from builders.cli.handler import flag_of

    exc = SettingError("out", "is not a folder: /tmp/out is a file")
    assert str(exc) == "out is not a folder: /tmp/out is a file"
    assert exc.worded(flag_of) == "--out is not a folder: /tmp/out is a file"


def test_paths_and_names_holding_a_setting_name_are_never_worded():
    """A path or a name that holds a setting's name (a folder ``out``, a model ``model``) is left as it is."""
    from builders.base.errors import OneRulerError
    from builders.cli.handler import flag_of

    from builders.base.errors import named_setting

    said = "out/p.jsonl was written with model 'model'"
    exc = OneRulerError(f"{said}; choose another {named_setting('out')}")
    assert str(exc) == "out/p.jsonl was written with model 'model'; choose another out"
    assert exc.worded(flag_of) == "out/p.jsonl was written with model 'model'; choose another --out"


def test_a_setting_error_words_its_setting_not_the_same_word_in_its_problem():
    from builders.base.errors import SettingError
    from builders.cli.handler import flag_of

    exc = SettingError("shard", "'shard': give I/N, e.g. 0/4, not a shard name; or pass skip_overlong",
                       settings=("skip_overlong",))
    assert exc.worded(flag_of) == "--shard 'shard': give I/N, e.g. 0/4, not a shard name; or pass --skip-overlong"
    assert set(exc.settings) == {"shard", "skip_overlong"}
