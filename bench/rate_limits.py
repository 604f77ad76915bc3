"""What the rate limits cost a cached read (``anchors.md`` §3: under 3 % of its throughput).

The limits off (the default) against the recommended limits on, counted in memory and
raised so that nothing is refused (every request still takes a token and gets its
``RateLimit`` headers; all come from one address, so they share one bucket and its
lock, the worst case), by ``overhead.py``'s method: over HTTP, two ``calendar-rest
serve`` processes in alternating rounds (the verdict: exit 1 at 3 % or more), and
in-process, this thread's CPU µs per cached hit of the WSGI callable. ``--control``
starts both servers without limits.

    python bench/rate_limits.py
    python bench/rate_limits.py --rounds 7 --duration 3 --connections 16 --threads 8
"""

from __future__ import annotations

import sys
import typing as t

from overhead import Feature, Variant, arguments, compare, headers_of
from run import Server

#: limits on, and never reached by the measurement
LIMITS: dict[str, t.Any] = {
    "rate_limit_anonymous": 10**9,
    "rate_limit_authenticated": 10**9,
    "rate_limit_writes": 10**9,
}
VARIABLES = {f"CALENDAR_REST_{name.upper()}": str(value) for name, value in LIMITS.items()}


def check(off: Server, on: Server, sent: dict[str, int]) -> None:
    """Only a server with the limits on sends ``RateLimit`` headers."""
    assert "ratelimit" not in headers_of(off.base)
    assert ("ratelimit" in headers_of(on.base)) != (off.name == on.name)  # --control


RATE_LIMITS = Feature(
    "rate-limits",
    off_settings={},
    on_settings=LIMITS,
    off=Variant("limits off", dict.fromkeys(VARIABLES)),
    on=Variant("limits on", VARIABLES),
    check=check,
)


def main(argv: list[str] | None = None) -> int:
    control = "both servers without limits: the noise of the method, as a cost"
    return compare(RATE_LIMITS, arguments(__doc__.split("\n\n")[0], control).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
