"""The plain progress line comes every interval even while no row finishes (a long prompt on a slow server)."""

from __future__ import annotations

import asyncio

from builders.run.progress import RunProgress


def test_lines_keep_coming_while_no_row_finishes(capsys):
    async def go():
        bar = RunProgress(3, "rows", enabled=True, interval_s=0.1)
        ticker = asyncio.create_task(bar.tick())
        await asyncio.sleep(0.35)  # nothing finishes: a row of 128k tokens being read
        bar.advance(100, 5)
        ticker.cancel()
        bar.close()

    asyncio.run(go())
    lines = capsys.readouterr().err.splitlines()
    assert len([x for x in lines if x.startswith("rows [0/3] 0.0%")]) >= 2
    assert all(" | elapsed " in x and "ETA ?" in x for x in lines if x.startswith("rows [0/3]"))


def test_a_disabled_bar_says_nothing(capsys):
    async def go():
        bar = RunProgress(3, "rows", enabled=False, interval_s=0.05)
        await asyncio.wait_for(bar.tick(), 1)  # returns at once

    asyncio.run(go())
    assert capsys.readouterr().err == ""
