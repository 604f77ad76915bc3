"""The same load as ``load.run_load``, driven by wrk (a C load generator) instead.

The stdlib client of ``load.py`` spends far more CPU per request than the servers it
measures once they are fast: on a 2-core machine it tops out near the floor's own
rate (about 5,000 to 6,000 answers of 40 KB a second), so a server twice that fast,
two worker processes answering from their caches say, cannot show it. wrk (Debian's
``wrk`` package) reads with one epoll thread and costs a fraction of that, so it can
measure what the stdlib client hides. Its figures are not comparable with the stdlib
client's: compare rows measured with the same client only.

wrk runs for ``warmup`` seconds (discarded), then ``duration`` seconds; it knows no
request budget, so ``max_requests`` is not applied. A Lua script cycles ``paths``
(each connection starting at a different offset) and counts the answers'
``X-Calendar-Cache`` values and 200s; latencies are wrk's (every answer, as it keeps
no per-status histogram).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from load import CACHE_HEADER, REQUEST_TIMEOUT, LoadResult, loopback

#: the line the script's ``done`` prints, followed by its figures
MARK = "BENCH-WRK"

SCRIPT = f"""
local paths = {{}}
for line in io.lines(os.getenv("BENCH_WRK_PATHS")) do paths[#paths + 1] = line end
local threads = {{}}
local started = 0

function setup(thread)
  thread:set("offset", started)
  started = started + 1
  table.insert(threads, thread)
end

function init(args)
  position = offset * 7919
  hits, misses, oks, bytes = 0, 0, 0, 0
end

function request()
  position = position % #paths + 1
  return wrk.format("GET", paths[position])
end

function response(status, headers, body)
  local cache = headers["{CACHE_HEADER}"]
  if cache == "hit" then hits = hits + 1 elseif cache == "miss" then misses = misses + 1 end
  if status == 200 then
    oks = oks + 1
    bytes = bytes + (tonumber(headers["Content-Length"]) or 0)
  end
end

function done(summary, latency, requests)
  local h, m, o, b = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    h = h + thread:get("hits")
    m = m + thread:get("misses")
    o = o + thread:get("oks")
    b = b + thread:get("bytes")
  end
  local e = summary.errors
  io.write(string.format("{MARK} %d %d %d %d %d %d %d %d %d\\n",
    summary.requests, e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99), h, m, o, b))
end
"""


def available() -> bool:
    return shutil.which("wrk") is not None


def run_wrk(
    base: str,
    paths: list[str],
    connections: int = 16,
    duration: float = 10.0,
    max_requests: int = 200_000,
    warmup: float = 1.0,
) -> LoadResult:
    """Load ``base`` (``http://127.0.0.1:PORT``) as ``load.run_load`` does, with wrk."""
    del max_requests  # wrk has no request budget (see the module docstring)
    loopback(base)
    assert paths and connections > 0 and duration > 0 and warmup >= 0
    wrk = shutil.which("wrk")
    if wrk is None:
        raise RuntimeError("wrk is not installed (Debian: apt-get install wrk)")
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as folder:
        script = Path(folder, "load.lua")
        script.write_text(SCRIPT)
        listed = Path(folder, "paths")
        listed.write_text("".join(f"{path}\n" for path in paths))
        env = {**os.environ, "BENCH_WRK_PATHS": str(listed)}

        def wrk_for(seconds: float) -> str:
            command = [
                wrk, "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s",
                f"--timeout={int(REQUEST_TIMEOUT)}s", "-s", str(script), base + "/",
            ]  # fmt: skip
            limit = seconds + REQUEST_TIMEOUT + 10
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=limit, check=True
            )
            return done.stdout

        if warmup > 0:
            wrk_for(warmup)
        output = wrk_for(duration)
    return parse(output)


def parse(output: str) -> LoadResult:
    """The figures of the script's ``done`` line in wrk's output."""
    for line in output.splitlines():
        if line.startswith(MARK + " "):
            requests, errors, micros, p50, p99, hits, misses, oks, body = (
                int(field) for field in line.split()[1:]
            )
            return LoadResult(
                requests=requests,
                errors=errors + (requests - oks),
                req_per_s=requests / (micros / 1e6) if micros else 0.0,
                p50_ms=p50 / 1000,
                p99_ms=p99 / 1000,
                body_bytes=round(body / oks) if oks else 0,
                cache_hits=hits,
                cache_misses=misses,
            )
    raise RuntimeError(f"wrk printed no {MARK} line:\n{output}")


__all__ = ["available", "parse", "run_wrk"]
