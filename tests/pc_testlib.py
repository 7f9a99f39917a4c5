# SPDX-License-Identifier: BSD-2-Clause
"""Helpers shared by the tests' Python checks (tests/cli_test.sh puts this
directory on PYTHONPATH; scripts elsewhere add it to sys.path)."""


def stimes(s):
    """A processed samples table's times in ms: its "time" column, or the
    running sum of its "timeDeltas" (summed in whole ns, so exact)."""
    if "time" in s:
        return s["time"]
    out, t = [], 0
    for d in s["timeDeltas"]:
        t += round(d * 1e6)
        out.append(t / 1e6)
    return out
