"""TextWorldExpress as a speed peer, the TWX side of ``bench_vs_twx.py``: its native loop in a JVM
beside the driver (a small Java program calling TWX's own ``PythonInterface``, fed one round at a time),
its Python API's resets and distinct views, and the wait for its JIT to go idle between rows.

TWX is optional and never a dependency of tui-adventure::

    pip install textworld-express        # the jar and its Python API (py4j)
    apt-get install default-jdk-headless # java and javac (Debian's JDK) for the native loop
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CAP = 100   # steps an episode may last, on both sides

JAVA_LOOP = r"""
import textworldexpress.runtime.PythonInterface;
import textworldexpress.struct.StepResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Random;

public class TwxLoop {
    public static void main(String[] args) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Random rng = new Random(0);
        PythonInterface twx = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] a = line.trim().split(" ");
            if (a[0].equals("quit")) break;
            // a[0] game, a[1] params, a[2] seed, a[3] steps, a[4] "fresh": a new game (seed, seed + 1, ...) each episode
            twx = new PythonInterface();
            String msg = twx.load(a[0], a[1]);
            if (msg != null && !msg.isEmpty()) { System.out.println("error " + msg); System.out.flush(); continue; }
            int seed = Integer.parseInt(a[2]);
            long steps = Long.parseLong(a[3]), n = 0, resets = 0;
            boolean fresh = a.length > 4 && a[4].equals("fresh");
            long w0 = System.nanoTime(), c0 = os.getProcessCpuTime();
            while (n < steps) {
                StepResult s = twx.generateNewGame(fresh ? seed + (int) resets : seed, "train", false);
                resets++;
                for (int t = 0; t < %d && n < steps; t++) {
                    String[] valid = s.validActions();
                    s = twx.step(valid[rng.nextInt(valid.length)]);
                    n++;
                    if (s.taskSuccess() || s.taskFailure()) break;
                }
            }
            double wall = (System.nanoTime() - w0) / 1e9, cpu = (os.getProcessCpuTime() - c0) / 1e9;
            System.out.println(n + " " + resets + " " + wall + " " + cpu);
            System.out.flush();
        }
    }
}
""" % CAP




def twx_home() -> Path | None:
    try:
        import textworld_express.constants as c
    except ImportError:
        return None
    return Path(c.BASEPATH)


class JvmLoop:
    """TWX's native loop in a JVM beside us, told to play one round at a time."""

    def __init__(self, home: Path, cpus: set[int] | None = None) -> None:
        """``cpus``: the cores the JVM may run on, set before it starts, so that it sizes its collector
        and compiler threads for them (as it reads the process's affinity at start)."""
        self.dir = tempfile.mkdtemp(prefix="twx-loop-")
        src = Path(self.dir) / "TwxLoop.java"
        src.write_text(JAVA_LOOP)
        jar = str(home / "textworld-express.jar")
        subprocess.run(["javac", "-cp", jar, "-d", self.dir, str(src)], check=True)
        pin = None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))
        self.proc = subprocess.Popen(["java", "-cp", os.pathsep.join([jar, self.dir]), "TwxLoop"], cwd=home,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     preexec_fn=pin)

    def round(self, game: str, params: str, seed: int, steps: int, fresh: bool = False) -> tuple[int, float, float]:
        self.start(game, params, seed, steps, fresh)
        return self.result()

    def start(self, game: str, params: str, seed: int, steps: int, fresh: bool = False) -> None:
        """``fresh``: a new game each episode (seeds from ``seed`` on), as our ``fresh`` row's worlds."""
        self.proc.stdin.write(f"{game} {params} {seed} {steps}{' fresh' if fresh else ''}\n")
        self.proc.stdin.flush()

    def result(self) -> tuple[int, float, float]:
        out = self.proc.stdout.readline().split()
        if not out or out[0] == "error":
            raise RuntimeError(f"TWX: {' '.join(out)}")
        return int(out[0]), float(out[2]), float(out[3])

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def twx_python_resets(env, seeds: list[int]) -> tuple[int, float, float]:
    """(resets, wall, CPU): the CPU of both processes, ours (py4j) and the JVM serving it."""
    jvm = env._gateway.java_process.pid
    w, c, j = time.perf_counter(), time.process_time(), _cpu_of(jvm)
    for s in seeds:
        env.reset(seed=s)
    return len(seeds), time.perf_counter() - w, time.process_time() - c + _cpu_of(jvm) - j


def twx_states(env, steps: int) -> int:
    """The distinct (look, inventory) texts a random walk of ``steps`` meets in TWX's game of seed 1, as the
    native loop plays it (TWX's state is not exposed: what the player is shown stands for it, so this
    is at most its states)."""
    rng = random.Random(0)
    seen: set = set()
    n = 0
    while n < steps:
        _, infos = env.reset(seed=1, gameFold="train", generateGoldPath=False)
        for _ in range(CAP):
            _, _, done, infos = env.step(rng.choice(infos["validActions"]))
            seen.add((infos["look"], infos["inventory"]))
            n += 1
            if done or infos["tasksuccess"] or infos["taskfailure"] or n >= steps:
                break
    return len(seen)


def _cpu_of(pid: int) -> float:
    """A process's user + system CPU seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pids: list[int], quiet: float = 0.005, step: float = 0.05, limit: float = 30.0) -> float:
    """Wait until these processes stop using the CPU; returns the CPU seconds they used meanwhile.

    TWX's JVM goes on compiling (its JIT) for up to a second after its loop reports a round: that work
    is not in the loop's own CPU figure, and left alone it ran on the core our next row was timed on."""
    used, t0 = 0.0, time.perf_counter()
    while time.perf_counter() - t0 < limit:
        before = sum(_cpu_of(p) for p in pids)
        time.sleep(step)
        grew = sum(_cpu_of(p) for p in pids) - before
        used += grew
        if grew <= quiet:
            break
    return used




def jvms_side_by_side(loops: list[JvmLoop], game: str, params: str, steps: int) -> tuple[int, float, float]:
    """(steps, wall, cpu) of one round played by each JVM loop at once: steps and CPU summed, wall clock
    the driver's from start to last (each loop plays the same seed: TWX's random agent is seeded in it)."""
    w = time.perf_counter()
    for loop in loops:
        loop.start(game, params, 1, steps)
    done = [loop.result() for loop in loops]
    return sum(d[0] for d in done), time.perf_counter() - w, sum(d[2] for d in done)
