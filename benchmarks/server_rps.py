"""P9: the HTTP server: resume latency, throughput with one and two workers, a fresh worker's CPU.

Every server is `python -m notebook_tools serve` in a process of its own (the tests'
`serve_process`) on a SQLite file, serving benchmarks/p9_agent.py: the tests' scripted
`confirm_agent` (asks `user_confirm` on every message, then answers), which also counts the
requests each worker process serves. A flow is `POST /agent/run` (pauses) then
`POST /agent/tool_results` (resumes and ends the turn); see benchmarks/p9_load.py.

1. Sequential flows on a fresh one-worker server: WARM_FLOWS flows, then FLOWS more. The
   tool_results requests of the later ones give the resume latency (request sent -> stream
   read); the baseline is the same resume in this process (agent built + `agent.resume` on a
   SQLite store, no HTTP). The same run reads the worker's CPU time (/proc/PID/stat; with one
   worker uvicorn serves in the `serve` process itself, checked against the pids that served):
   CPU per request over the first WARM_FLOWS flows against the later ones (it also used some
   before the first: imports, uvicorn's start, the app's warm-up).
2. Throughput, the same one-worker server next, then a fresh two-worker one (once each of its
   workers served a request): CONNS keep-alive connections from load processes for
   LOAD_WARM s, then flows counted over LOAD_SECONDS s. With >= 4 cores the workers get half of
   them and the load processes the other half (affinity is inherited, so this process pins
   itself while it starts each side); with fewer nothing is pinned and the clients share the
   workers' cores. The counting agent tells how the requests spread over the workers, and
   /proc how many connections each holds: a keep-alive connection stays with the worker that
   accepted it, and a worker that wakes to a burst of connections accepts all that are waiting
   (asyncio's accept loop), so one load process's connections can all land on one worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.p9_agent import COUNTS_ENV  # noqa: E402
from benchmarks.p9_load import flow  # noqa: E402
from tests.support.http_helpers import AUTH, serve_process  # noqa: E402  (the tests' own server starter)

AGENT = "benchmarks/p9_agent.py:counted_agent"  # a file: serve loads it by path (cwd is the repo)
WARM_FLOWS = 30
FLOWS = 200
CONNS = 8
LOAD_WARM = 3.0
"""Seconds of load before counting: connections open and a worker's first requests fall in them."""
LOAD_SECONDS = 8.0
_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) process `pid` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime: fields 14 and 15 of stat(5)


def _counts(folder: Path) -> dict[int, int]:
    """Requests served so far, by worker pid (see p9_agent.py)."""
    return {int(p.stem): p.stat().st_size for p in folder.glob("*.count")}


def _connections(pids: list[int], port: int) -> dict[int, int]:
    """Established TCP connections to `port` each process holds (its socket fds in /proc/net/tcp*)."""
    established = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                f = line.split()  # sl, local address:port (hex), remote, state (01: established), ..., inode
                if f[3] == "01" and int(f[1].rpartition(":")[2], 16) == port:
                    established.add(f"socket:[{f[9]}]")
    out = {}
    for pid in pids:
        fds = set()
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):  # closed meanwhile
                fds.add(os.readlink(fd))
        out[pid] = len(fds & established)
    return out


def _quantile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


@contextlib.contextmanager
def _pinned(cores: list[int] | None) -> Iterator[None]:
    """This thread (and the processes it starts meanwhile) on `cores`; None: as it was."""
    if cores is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def core_plan() -> dict[str, Any]:
    """Which cores the workers and the load processes get: half each with >= 4 cores, else no pinning."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= 4:
        half = len(cores) // 2
        workers, clients = cores[:half], cores[half:]
        return {
            "cores": len(cores),
            "workers": workers,
            "clients": clients,
            "worker_cores": len(workers),
            "load_processes": min(len(clients), CONNS),
            "how": f"workers pinned to cores {workers}, clients to {clients}",
        }
    return {
        "cores": len(cores),
        "workers": None,
        "clients": None,
        "worker_cores": 0,  # of their own: they share every core with the clients
        "load_processes": 1,
        "how": f"{len(cores)} cores: no pinning possible, workers and clients share them",
    }


# -- 1 and 3: sequential flows on a fresh one-worker server -----------------------------------------


def _in_process(path: str) -> list[float]:
    """Seconds of each of FLOWS resumes (after WARM_FLOWS), in this process on a SQLite store."""
    import asyncio

    import notebook_tools as nt
    from tests.support.server_agents import confirm_agent

    store = nt.SQLiteStore(path)

    async def flows() -> list[float]:
        out = []
        for _ in range(WARM_FLOWS + FLOWS):
            agent = confirm_agent()
            agent.store = store
            paused = await agent.run("clean")
            [call] = paused.pending_frontend_tools
            start = time.perf_counter()
            resumer = confirm_agent()  # the server builds an agent for each request too
            resumer.store = store
            await resumer.resume(
                [nt.ToolResult(tool_use_id=call.tool_use_id, content="yes")], paused.agent_uuid
            )
            out.append(time.perf_counter() - start)
        return out[WARM_FLOWS:]

    return asyncio.run(flows())


def _serving(
    stack: contextlib.ExitStack, tmp: Path, workers: int, plan: dict[str, Any]
) -> tuple[str, int, Path]:
    """A fresh server with `workers` workers on the plan's worker cores: (base URL, serve pid, counts folder)."""
    counts = tmp / f"counts_{workers}"
    counts.mkdir()
    store = f"sqlite:{tmp / f'w{workers}.sqlite'}"
    with _pinned(plan["workers"]):  # the serve process, and the workers it spawns, inherit this
        base, proc = stack.enter_context(
            serve_process(AGENT, store, workers=workers, env={COUNTS_ENV: str(counts)})
        )
    return base, proc.pid, counts


def _sequential(base: str, pid: int, counts: Path) -> dict[str, Any]:
    """Resume latencies and the worker's CPU over its first WARM_FLOWS flows and the FLOWS after."""
    import httpx

    cpu_start = _cpu(pid)
    with httpx.Client(base_url=base, headers=AUTH, timeout=120) as client:
        first = [flow(client) for _ in range(WARM_FLOWS)]
        cpu_first = _cpu(pid)
        later = [flow(client) for _ in range(FLOWS)]
        cpu_later = _cpu(pid)
    served = _counts(counts)
    # With --workers 1 uvicorn serves in the serve process itself: the counting agent says which pid served.
    assert served == {pid: 2 * (WARM_FLOWS + FLOWS)}, f"served by {served}; the serve process is {pid}"
    resumes = [r for _, r in later]
    return {
        "resume_p50": statistics.median(resumes),
        "resume_p99": _quantile(resumes, 99),
        "first_run": first[0][0],
        "first_resume": first[0][1],
        "startup_cpu": cpu_start,
        "cpu_first": (cpu_first - cpu_start) / (2 * WARM_FLOWS),
        "cpu_later": (cpu_later - cpu_first) / (2 * FLOWS),
    }


def _until_all_serve(base: str, counts: Path, workers: int) -> None:
    """Send runs, each on a new connection, until every worker has served one.

    `serve_process` returns once one worker answers; a worker still warming up takes no
    connection, and the load's keep-alive connections would all stay with the ready ones.
    """
    import httpx

    deadline = time.monotonic() + 60
    while len(_counts(counts)) < workers:
        assert time.monotonic() < deadline, f"{len(_counts(counts))} of {workers} workers served within 60 s"
        httpx.post(base + "/agent/run", json={"message": "clean"}, headers=AUTH, timeout=60)


def _throughput(base: str, counts: Path, processes: int) -> dict[str, Any]:
    """Flows/s over LOAD_SECONDS after LOAD_WARM s of the same load, and requests by worker pid."""
    start = time.time() + 1.5  # the load processes import httpx meanwhile
    count_from, until = start + LOAD_WARM, start + LOAD_WARM + LOAD_SECONDS
    started = _counts(counts)
    script = str(ROOT / "benchmarks" / "p9_load.py")
    loads = []
    for i in range(processes):  # they inherit this thread's cores
        conns = CONNS // processes + (i < CONNS % processes)
        args = {"base": base, "conns": conns, "start": start, "count_from": count_from, "until": until}
        loads.append(subprocess.Popen([sys.executable, script, json.dumps(args)], stdout=subprocess.PIPE))
    time.sleep(max(0.0, count_from - time.time()))
    before = _counts(counts)
    connections = _connections(sorted(before), int(base.rpartition(":")[2]))
    time.sleep(max(0.0, until - time.time()))
    after = _counts(counts)
    flows = 0
    for load in loads:
        out, _ = load.communicate(timeout=120)
        assert load.returncode == 0, f"a load process failed ({load.returncode})"
        flows += json.loads(out)["flows"]
    return {
        "flows_per_s": flows / LOAD_SECONDS,
        "warm_up": {pid: n - started.get(pid, 0) for pid, n in sorted(before.items())},
        "window": {pid: n - before.get(pid, 0) for pid, n in sorted(after.items())},
        "connections": connections,
    }


def measure() -> dict[str, Any]:
    """Every P9 figure (seconds, flows/s, requests by pid), and the core plan they ran under."""
    plan = core_plan()
    out: dict[str, Any] = {"plan": plan, "load_average": os.getloadavg()[0]}
    took: dict[str, float] = {}
    out["seconds"] = took  # wall time of each phase
    last = [time.perf_counter()]

    def lap(phase: str) -> None:
        now = time.perf_counter()
        took[phase], last[0] = round(now - last[0], 1), now

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        base = _in_process(str(tmp / "base.sqlite"))
        out.update(in_process_p50=statistics.median(base), in_process_p99=_quantile(base, 99))
        lap("in process")
        for workers in (1, 2):
            with contextlib.ExitStack() as stack:
                url, pid, counts = _serving(stack, tmp, workers, plan)
                lap(f"start {workers}")
                with _pinned(plan["clients"]):
                    if workers == 1:  # 1 and 3 on the fresh worker, then its throughput
                        out.update(_sequential(url, pid, counts))
                    else:
                        _until_all_serve(url, counts, workers)
                    lap(f"flows {workers}")
                    out[f"workers_{workers}"] = _throughput(url, counts, plan["load_processes"])
                    lap(f"load {workers}")
            lap(f"stop {workers}")
    return out


def spread(requests: dict[int, int]) -> str:
    """`pid: n (share)` for each worker, busiest first."""
    total = sum(requests.values()) or 1
    rows = sorted(requests.items(), key=lambda kv: -kv[1])
    return ", ".join(f"pid {pid}: {n} ({n / total:.0%})" for pid, n in rows)


def report(m: dict[str, Any]) -> str:
    """The P9 figures as a few lines (run.py prints them to stderr)."""
    ms = 1000
    one, two = m["workers_1"], m["workers_2"]
    scale = two["flows_per_s"] / one["flows_per_s"] if one["flows_per_s"] else float("nan")
    lines = [
        f"P9: serve on a SQLite store, scripted confirm_agent; {m['plan']['how']};"
        f" load average {m['load_average']:.1f} at the start",
        f"  resume (POST /agent/tool_results), {FLOWS} sequential flows after {WARM_FLOWS}, 1 worker:"
        f"  p50 {m['resume_p50'] * ms:.1f} ms  p99 {m['resume_p99'] * ms:.1f} ms"
        f"   (in process: p50 {m['in_process_p50'] * ms:.1f} ms  p99 {m['in_process_p99'] * ms:.1f} ms)",
        f"  a fresh worker's first flow: run {m['first_run'] * ms:.0f} ms, resume {m['first_resume'] * ms:.0f} ms;"
        f" CPU before its first request {m['startup_cpu']:.2f} s",
        f"  worker CPU per request: first {WARM_FLOWS} flows {m['cpu_first'] * ms:.1f} ms,"
        f" the {FLOWS} after {m['cpu_later'] * ms:.1f} ms ({m['cpu_first'] / m['cpu_later']:.2f}x)",
        f"  throughput, {CONNS} keep-alive connections from {m['plan']['load_processes']} load process(es),"
        f" {LOAD_SECONDS:.0f} s after {LOAD_WARM:.0f} s:"
        f" 1 worker {one['flows_per_s']:.1f} flows/s, 2 workers {two['flows_per_s']:.1f} flows/s ({scale:.2f}x)",
        f"  requests by worker, 2 workers, counted window: {spread(two['window'])};"
        f" keep-alive connections each held: {spread(two['connections'])}",
        f"  requests by worker, 2 workers, the {LOAD_WARM:.0f} s of load before: {spread(two['warm_up'])}",
        "  wall time (s): " + ", ".join(f"{phase} {s:.1f}" for phase, s in m["seconds"].items()),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    result = measure()
    print(report(result), file=sys.stderr)
    print(json.dumps(result, indent=1, default=str))
