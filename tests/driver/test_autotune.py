"""lc.autotune on the CPU runtime: the fastest configuration wins, failing ones are reported
and skipped, the choice is kept on disk for the next process, the table shows what was measured."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from autotune_kernels import THREADS, CopyConfig, knob_copy, make_copy
from layoutc.driver.autotune import AutotuneError, AutotuneWarning

N = 1 << 13


def arrays(n: int = N) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(n, dtype=np.float32), np.full(n, np.nan, np.float32)


def copied(meta: dict) -> bool:
    return bool((meta["dst"] == meta["src"]).all())


def test_picks_the_fastest_and_skips_configurations_that_fail():
    slow = lc.Config(tile=256, reps=64, block=THREADS)  # 64 times the work
    fast = lc.Config(tile=256, reps=1, block=THREADS)
    wrong = lc.Config(tile=256, wrong=True, block=THREADS)  # compiles, fails the check
    broken = lc.Config(tile=256, broken=True, block=THREADS)  # does not compile
    tuned = lc.autotune(configs=[slow, wrong, fast, broken], key=["src"], check=copied, workers=1)(
        knob_copy
    )
    src, dst = arrays()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned(src, dst, grid=lambda meta: N // meta["tile"], target="cpu")
    assert (dst == src).all()  # the call launched the choice
    assert tuned.best_config(src, dst, target="cpu") is fast
    skipped = [str(w.message) for w in caught if issubclass(w.category, AutotuneWarning)]
    assert len(skipped) == 2
    assert any("wrong=True" in m and "check failed" in m for m in skipped)
    assert any(
        "broken=True" in m and "compile failed" in m and "no_such_function" in m for m in skipped
    )

    table = tuned.table().splitlines()
    assert table[0] == "autotune 'knob_copy'"
    rows = {line.split("Config(")[1].split(")")[0]: line for line in table[2:]}
    assert set(rows) == {
        "tile=256, reps=64, block=32",
        "tile=256, reps=1, block=32",
        "tile=256, wrong=True, block=32",
        "tile=256, broken=True, block=32",
    }
    assert rows["tile=256, reps=1, block=32"].startswith("*")
    assert "1.00x" in rows["tile=256, reps=1, block=32"]
    assert not rows["tile=256, reps=64, block=32"].startswith("*")
    assert "check failed" in rows["tile=256, wrong=True, block=32"]
    assert "compile failed" in rows["tile=256, broken=True, block=32"]
    tuning = tuned.tunings[tuned.last_key]
    assert tuning.rows[0].seconds > tuning.rows[2].seconds


def test_each_key_is_tuned_once_and_a_builder_can_be_tuned():
    configs = [CopyConfig(tile=128, reps=32), CopyConfig(tile=128, reps=1)]
    tuned = lc.autotune(configs=configs, key=["src"], block=THREADS, workers=1)(make_copy)
    for n in (N, 2 * N, N):
        src, dst = arrays(n)
        tuned(src, dst, grid=lambda meta, n=n: n // meta["config"].tile, target="cpu")
        assert (dst == src).all()
        assert tuned.best_config(src, dst, target="cpu") == configs[1]
    assert len(tuned.tunings) == 2  # two shapes of src


def test_every_configuration_failing_is_one_clear_error():
    configs = [lc.Config(tile=256, broken=True), lc.Config(tile=256, wrong=True)]
    tuned = lc.autotune(configs=configs, key=["src"], check=copied, workers=1)(knob_copy)
    src, dst = arrays()
    with pytest.warns(AutotuneWarning), pytest.raises(AutotuneError) as err:
        tuned(src, dst, grid=N // 256, block=THREADS, target="cpu")
    message = str(err.value)
    assert message.startswith("autotune 'knob_copy': every configuration failed:")
    assert "Config(tile=256, broken=True): compile failed:" in message
    assert "Config(tile=256, wrong=True): check failed:" in message


def test_the_choice_is_cached_on_disk_for_the_next_process(tmp_path):
    """The first process compiles on a pool of two processes and tunes; the second reads the
    choice (and the compiled code) from the cache and neither compiles nor times."""
    script = tmp_path / "tune.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            import numpy as np
            import layoutc as lc
            from autotune_kernels import knob_copy

            if __name__ == "__main__":
                configs = [lc.Config(tile=256, reps=48, block=32),
                           lc.Config(tile=256, reps=1, block=32)]
                tuned = lc.autotune(configs=configs, key=["src"], workers=int(sys.argv[1]))(
                    knob_copy)
                src = np.arange(8192, dtype=np.float32)
                dst = np.zeros_like(src)
                tuned(src, dst, grid=lambda m: 8192 // m["tile"], target="cpu")
                assert (dst == src).all()
                tuning = tuned.tunings[tuned.last_key]
                print("cached", tuning.cached, "best", tuned.configs[tuning.best])
                # the workers' code was adopted: nothing was compiled again here
                print("hits", all(ck.cache_hit for ck in tuned._compiled.values()))
            """
        )
    )
    env = {**os.environ, "LAYOUTC_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("LAYOUTC_AUTOTUNE_PRINT", None)

    def run(workers: int, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(script), str(workers)],
            env={**env, **extra},
            capture_output=True,
            text=True,
            timeout=300,
        )

    first = run(2)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split("\n")[:2] == [
        "cached False best Config(tile=256, reps=1, block=32)",
        "hits True",
    ]
    second = run(1, LAYOUTC_AUTOTUNE_PRINT="1")
    assert second.returncode == 0, second.stderr
    assert second.stdout.split("\n")[0] == "cached True best Config(tile=256, reps=1, block=32)"
    assert "autotune 'knob_copy' (cached choice)" in second.stderr
    assert "* " in second.stderr


def test_a_kernel_workers_cannot_rebuild_is_tuned_in_this_process():
    """A kernel defined in a function cannot be imported by a worker: with workers=2 its
    configurations still compile (here, one after the other) and the fastest wins."""

    @lc.kernel
    def local_copy(
        src: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
        dst: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
        reps: lc.Constexpr,
    ):
        tv = lc.make_layout((THREADS, 8), (1, THREADS))
        s = lc.partition_tv(lc.local_tile(src, (256,), (lc.block_idx.x,)), tv, lc.thread_idx.x)
        d = lc.partition_tv(lc.local_tile(dst, (256,), (lc.block_idx.x,)), tv, lc.thread_idx.x)
        for _ in lc.range(reps):
            lc.copy(s, d)

    configs = [lc.Config(reps=64, block=THREADS), lc.Config(reps=1, block=THREADS)]
    tuned = lc.autotune(configs=configs, key=["src"], workers=2)(local_copy)
    src, dst = arrays()
    tuned(src, dst, grid=N // 256, target="cpu")
    assert (dst == src).all()
    assert tuned.best_config(src, dst, target="cpu") is configs[1]


def test_the_progress_bar_draws_only_on_a_terminal():
    import io

    from layoutc.driver.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = Progress(2, "compiling", screen)
    bar()
    assert screen.getvalue() == "\rcompiling [" + "#" * 15 + "." * 15 + "] 1/2"
    bar()
    assert screen.getvalue().endswith("] 2/2\r" + " " * 59 + "\r")
    piped = io.StringIO()
    Progress(2, "compiling", piped)()
    assert piped.getvalue() == ""
