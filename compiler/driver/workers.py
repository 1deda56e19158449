"""A pool of compile processes: ``python -m layoutc.driver.workers``, fed pickled jobs over pipes.

Why not ``multiprocessing``: its spawn method re-runs the user's main script in every worker
(a script without an ``if __name__ == "__main__":`` guard then tunes or builds again, and
crashes the pool), and fork copies CUDA and LLVM state that must not be shared. A worker here
starts from nothing but the parent's ``sys.path``, imports what a job names, and runs one job
at a time; the parent hands the next job to whichever worker is free.

Frames on the pipes: an 8-byte little-endian length, then a pickle. A worker answers each job
with ``(True, result)`` or ``(False, "Type: message")``; a worker that dies fails only the job
it was running.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

#: Set in the workers, so that work they do does not start pools of its own.
WORKER_ENV = "LAYOUTC_COMPILE_WORKER"


def in_worker() -> bool:
    return os.environ.get(WORKER_ENV) == "1"


def _send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def run_jobs(
    fn: Callable[[Any], Any],
    jobs: Sequence[Any],
    workers: int,
    progress: Callable[[], None] | None = None,
) -> list[tuple[bool, Any]]:
    """``fn(job)`` for every job on ``workers`` processes: ``(True, result)`` or
    ``(False, message)`` per job, in the jobs' order. ``fn`` must be a module-level function
    (it is pickled by reference)."""
    results: list[tuple[bool, Any] | None] = [None] * len(jobs)
    lock = threading.Lock()
    next_job = iter(range(len(jobs)))
    env = {**os.environ, WORKER_ENV: "1", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    def serve() -> None:
        proc = subprocess.Popen(
            [sys.executable, "-m", "layoutc.driver.workers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, list(sys.path))
            while True:
                with lock:
                    index = next(next_job, None)
                if index is None:
                    break
                try:
                    _send(proc.stdin, (fn, jobs[index]))
                    results[index] = _receive(proc.stdout)
                except (EOFError, OSError, pickle.PickleError) as e:
                    results[index] = (False, f"the compile worker died: {type(e).__name__} {e}")
                    break
                finally:
                    if progress is not None:
                        with lock:
                            progress()
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            proc.wait()
            proc.stdout.close()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # jobs no worker got to (every worker died): run them here, so nothing is lost
    for i, r in enumerate(results):
        if r is None:
            results[i] = _call(fn, jobs[i])
    return [r for r in results if r is not None]


def _call(fn: Callable[[Any], Any], job: Any) -> tuple[bool, Any]:
    try:
        return True, fn(job)
    except Exception as e:
        return False, f"{type(e).__name__}: {e}"


def main() -> None:
    """The worker: jobs from stdin, answers on (the original) stdout; prints go to stderr."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what jobs print must not corrupt the frames
    source = sys.stdin.buffer
    try:
        sys.path[:] = _receive(source)
        while True:
            fn, job = _receive(source)
            _send(out, _call(fn, job))
    except EOFError:
        pass


if __name__ == "__main__":
    main()
