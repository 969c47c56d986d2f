"""Inspect's entry point into the package: the task ``oneruler/oneruler``.

``pyproject.toml`` names this module under ``[project.entry-points.inspect_ai]`` as ``oneruler``.
Asked for ``oneruler/oneruler``, Inspect loads the entry point named after the part before the
slash, then looks the task up by name. It names a task ``{top-level module}/{name}``, after the
module that defines it, when that module belongs to an installed (or editable) distribution; this
package's modules live under ``builders``, which would make the name ``builders/oneruler``. So the
task is registered from a function that belongs to the distribution's own top-level module,
``oneruler`` (``oneruler.py``, the ``datasets`` builder, shipped by the same distribution): its
name is ``oneruler/oneruler`` however the package is installed.
"""

from __future__ import annotations

import functools

import oneruler as distribution_module
from inspect_ai import task

from ..base.errors import OneRulerError
from .task import oneruler_task

try:  # Inspect prints this kind of error as its message alone, without a traceback (its exception hook)
    from inspect_ai._util.error import PrerequisiteError as _InspectsOwnError
except ImportError:  # a release that moved it: the error still says what is wrong, under a traceback
    _InspectsOwnError = Exception


class TaskOptionError(OneRulerError, _InspectsOwnError):
    """A bad ``-T`` option or a dataset the task cannot read: one ``error:`` line at Inspect's prompt."""

    def __init__(self, message: str):
        OneRulerError.__init__(self, message)
        self.message = f"error: {message}"  # what Inspect's exception hook prints


def distribution_task(body):
    """``body`` as a function of the top-level ``oneruler`` module (see the module docstring), same signature."""

    @functools.wraps(body)
    def oneruler(*args, **kwargs):
        try:
            return body(*args, **kwargs)
        except TaskOptionError:
            raise
        except OneRulerError as exc:
            raise TaskOptionError(str(exc)) from None

    oneruler.__module__ = distribution_module.__name__
    oneruler.__qualname__ = oneruler.__name__ = "oneruler"
    return oneruler


oneruler = task(name="oneruler")(distribution_task(oneruler_task))
