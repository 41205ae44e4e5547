"""``adventure run --ray ADDRESS|local``: episodes as Ray tasks, records written by the driver.

A task plays one episode in a scratch folder on its worker and returns the
episode's files; only the driver writes ``--records``. So a worker needs no
shared filesystem, a worker killed mid-episode leaves nothing behind (Ray runs
the task again from scratch: ``max_retries``), and the records are those a
local run writes: the same folders, the same files, written by the same
Recorder. The driver holds each episode's folder lock while its task is out,
as a local run holds it while playing, so two runs on one records folder
still never play the same episode twice.

Ray is imported here only, and only when ``--ray`` is given (extra ``[ray]``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import tempfile
from pathlib import Path

from .episodes import Summary, play_episode
from ..catalog import native_worlds, open_world
from ..instances.convert import world_from_document
from ..records.recorder import Recorder
from ..records.files import LOCK, OtherRun, RecordsError, read_json
from ..engine.loading import load_world_text
from ..engine.snapshot import write_atomic
from ..engine.sources import read_source
from ..engine.yamlpos import SourceErrors
from ..gamemaster.episode import Episode
from ..players import make_player, recorder_options

SCRATCH = "ADVENTURE_RAY_SCRATCH"   # where workers play before returning the files (default: the temp dir)
RETRIES = 3                         # times Ray runs a task again when its worker died
LAST = ("completed.json", "error.json")   # written last: a driver killed mid-write leaves an unfinished episode


class RayUnavailable(ConnectionError):
    """Ray is missing or its cluster cannot be reached; the message says which and what to do."""


# -- what travels to a worker -------------------------------------------------------------
def shipped(arg: str) -> tuple[str, str, str | None]:
    """A world as a task takes it: a packaged clembench name as itself (every install has it),
    a file (or a native world) as its text and the driver's absolute path, since a worker may
    not see the driver's files and the records must name the driver's file, as a local run does."""
    path = Path(arg)
    if not path.exists():
        path = native_worlds().get(arg, path)
    if not path.exists():
        return ("name", arg, None)
    return ("text", str(path.resolve()), read_source(path))


def world_of(source: tuple[str, str, str | None], max_turns: int | None):
    kind, where, text = source
    if kind == "name":
        world = open_world(where)
    else:
        assert text is not None   # a "text" source carries its file's text (shipped)
        world = load_world_text(text, where, readers={"clembench": world_from_document})
    return dataclasses.replace(world, max_turns=max_turns) if max_turns is not None else world


def play_shipped(source, spec: str, mode: str, name: str | None, max_turns: int | None) -> dict:
    """The Ray task: one episode in a fresh scratch folder, returned as its files.

    Anything the episode raises is the episode's outcome (an error, as in a
    local run), not the task's: only a dead worker makes Ray try again.
    """
    scratch = Path(tempfile.mkdtemp(prefix="adventure-ray-", dir=os.environ.get(SCRATCH) or None))
    status, message, success, context_full = "played", None, False, False
    try:
        try:
            world = world_of(source, max_turns)
            episode, _ = asyncio.run(_play(world, spec, mode, scratch, name))
            success, context_full = episode.outcome.success, episode.ended_by == "context_exhausted"
        except Exception as exc:
            status, message = "error", f"{source[1]}: {exc}" if isinstance(exc, (SourceErrors, RecordsError)) \
                else f"{source[1]}: {type(exc).__name__}: {exc}"
        files = {p.relative_to(scratch).as_posix(): p.read_bytes() for p in sorted(scratch.rglob("*"))
                 if p.is_file() and p.name != LOCK and not p.name.endswith(".tmp")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"status": status, "message": message, "success": success, "context_full": context_full,
            "files": files}


async def _play(world, spec: str, mode: str, records: Path, name: str | None):
    from ..players.backends.clients import close_clients

    try:
        return await play_episode(world, make_player(spec, world, mode), records, name=name)
    finally:
        await close_clients()


# -- the driver ---------------------------------------------------------------------------
def write_returned(records: Path, recorder: Recorder, files: dict[str, bytes]) -> None:
    """A task's files into ``records``, each atomically and durably, the end marker last; ``run.json`` merged
    with what is there (several experiments share it), the pointer the driver's own."""
    root = Path(records).resolve()
    for stale in ("completed.json", "error.json", "scores.json"):
        (recorder.dir / stale).unlink(missing_ok=True)
    later = [rel for rel in files if Path(rel).name in LAST]
    for rel in [rel for rel in files if rel not in later]:
        _write_one(root, rel, files[rel])
    recorder.write_pointer()   # a worker's pointer names its own scratch copy, or nothing
    for rel in later:
        _write_one(root, rel, files[rel])


def _write_one(root: Path, rel: str, data: bytes) -> None:
    target = (root / rel).resolve()
    if ".." in Path(rel).parts or not target.is_relative_to(root):
        raise RecordsError(f"a worker returned {rel!r}, which leads outside {root}")
    if target.name == "run.json" and target.exists():
        _merge_run(target, data)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, data)   # durable: the end marker must not outlive what it vouches for


def _merge_run(target: Path, data: bytes) -> None:
    import json

    try:
        run = read_json(target)
    except RecordsError:
        write_atomic(target, data)
        return
    for game, about in json.loads(data.decode("utf-8")).get("games", {}).items():
        run.setdefault("games", {}).setdefault(game, about)
    write_atomic(target, json.dumps(run, indent=2, ensure_ascii=False).encode("utf-8"))


def connect(address: str, cpus: int | None):
    """Ray, started locally (``local``: ``cpus`` CPUs, all when None) or joined at ``address``.

    An address checked here first fails in seconds with one line where Ray itself would retry for
    minutes, printing its own log lines: nothing answers, or what answers does not speak gRPC (a Ray
    cluster's GCS and its Ray Client server both do)."""
    import logging

    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'tui-adventure[ray]'") from None
    unreachable = _unreachable(address)
    if unreachable:
        raise RayUnavailable(f"--ray {address}: {unreachable}; start the cluster (ray start --head) or give"
                             " its address")
    try:
        if address == "local":
            # "local": always a new instance, never one RAY_ADDRESS or an earlier `ray start` names
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING)
        else:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        if "ray[client]" in str(exc):
            raise RayUnavailable(f"--ray {address}: joining by ray:// needs Ray Client: pip install 'ray[client]'"
                                 " (or give the cluster's own HOST:PORT, 6379 by default)") from None
        raise RayUnavailable(f"--ray {address}: cannot reach a Ray cluster there ({exc})") from None
    return ray


# what an HTTP/2 client sends first (RFC 9113 section 3.4): the preface, then a SETTINGS frame (here empty);
# a gRPC server's first frame back is its own SETTINGS frame (type 4, the fourth byte of its header)
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
SETTINGS = 4


def _unreachable(address: str) -> str | None:
    """Why HOST:PORT (or ray://HOST:PORT) is no Ray cluster, or None: nothing takes the connection, or
    what does is not a gRPC server. None as well for ``local``, ``auto`` and forms Ray resolves itself."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or address == "local":
        return None   # auto, or an address form Ray resolves itself
    try:
        conn = socket.create_connection((host.strip("[]"), int(port)), timeout=5)
    except OSError as exc:
        return f"nothing answers there ({exc.strerror or exc})"
    try:
        with conn:
            conn.sendall(HTTP2_PREFACE)
            first = conn.recv(9)
    except OSError:
        first = b""
    if len(first) < 4 or first[3] != SETTINGS:
        return "what answers there is not a Ray cluster (it does not speak gRPC)"
    return None


def _open_files(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (a lock a task in flight); what it is now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted and (hard == resource.RLIM_INFINITY or soft < hard):
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def run_on_ray(files: list[str], spec: str, records: str, jobs: int, address: str, reporter,
               mode: str = "text", name: str | None = None, max_turns: int | None = None,
               cpus: int | None = None) -> Summary:
    """Every episode not done yet as a task asking 1/``jobs`` of a CPU (a node plays CPUs x jobs at
    once, each in a worker process); finished ones are written as they come back."""
    ray = connect(address, cpus)
    summary = Summary()
    records_dir = Path(records)
    task = ray.remote(max_retries=RETRIES)(play_shipped).options(num_cpus=1 / max(1, jobs),
                                                                  scheduling_strategy="SPREAD")
    capacity = int(ray.cluster_resources().get("CPU", 1) * max(1, jobs))
    window = max(2, min(2 * capacity, _open_files(2 * capacity + 256) - 256))
    pending: dict = {}
    todo = iter(files)
    try:
        while True:
            for f in todo:
                submitted = _submit(f, spec, mode, name, max_turns, records_dir, task, summary, reporter)
                if submitted:
                    pending[submitted[0]] = submitted[1]
                if len(pending) >= window:
                    break
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                _collect(ray, ref, pending.pop(ref), records_dir, summary, reporter)
    except BaseException:   # Ctrl-C: tasks in flight are ended; what was written stays
        for ref, recorder in pending.items():
            ray.cancel(ref, force=True)
            recorder.unlock()
        raise
    finally:
        ray.shutdown()
    return summary


def _submit(f: str, spec, mode, name, max_turns, records: Path, task, summary: Summary, reporter):
    """(task, recorder) for an episode to play, or None when it is done, busy or cannot start."""
    try:
        source = shipped(f)
        world = world_of(source, max_turns)
        player = make_player(spec, world, mode)
        recorder = Recorder(records, world, name or player.name, **recorder_options(player, Episode(world)))
        recorder.refuse_other_run()
    except (SourceErrors, RecordsError, OSError, ValueError) as exc:
        if isinstance(exc, OtherRun):   # the run's folder holds another kind of run: said once
            if summary.run_refused(exc):
                reporter.log(str(exc))
            return None
        if isinstance(exc, SourceErrors):
            summary.world_did_not_load(exc)
        else:
            summary.errors += 1
        reporter.log(str(exc) if isinstance(exc, (SourceErrors, RecordsError)) else f"{f}: {exc}")
        return None
    if recorder.is_done():
        summary.skipped += 1
        reporter.advance(summary)
        return None
    if not recorder.lock():
        summary.busy += 1
        return None
    if recorder.is_done():   # finished by another run while we waited
        recorder.unlock()
        summary.skipped += 1
        reporter.advance(summary)
        return None
    return task.remote(source, spec, mode, name, max_turns), recorder


def _collect(ray, ref, recorder: Recorder, records: Path, summary: Summary, reporter) -> None:
    try:
        result = ray.get(ref)
        write_returned(records, recorder, result["files"])
    except (ray.exceptions.RayError, OSError, RecordsError) as exc:
        summary.errors += 1
        reporter.log(f"{recorder.dir}: {type(exc).__name__}: {exc}")
        return
    finally:
        recorder.unlock()
    if result["status"] == "error":
        summary.errors += 1
        reporter.log(result["message"])
        return
    summary.played += 1
    summary.succeeded += int(result["success"])
    summary.context_full += int(result["context_full"])
    reporter.advance(summary)
