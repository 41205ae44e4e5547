"""The time a world may take to make, and the seeds it may be made from: one rule each for
``adventure generate``, a study's ``generate:`` block and the gym's ``generate=``.

Most of making a large world cannot look at a clock: drafting 2,000 objects takes seconds, and the
planner's set-up for 400 rooms (its distance tables) took 106 s before the search, whose own
``max_seconds`` is the only check there was. So the budget is kept two ways: the planner's search
gets what is left of it, and where the process allows (the main thread, with SIGALRM unused), a
timer interrupts whatever part is running when it runs out.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time

from ..engine.text import plural
from .classic import KnobError

MAX_SEED = 2 ** 63 - 1     # every seed's world names stay far inside the name limit (128 characters)
DEFAULT_SECONDS = 60.0     # a world of the default knobs takes well under a second
HEARTBEAT = 5.0            # seconds between two progress notes while one world is being made


def check_seeds(first, count: int = 1, what: str = "--seed") -> None:
    """KnobError unless ``first`` .. ``first + count - 1`` are all seeds a world can be made from."""
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first or first + count - 1 > MAX_SEED:
        span = f" (with --count {count}, up to {MAX_SEED - count + 1})" if count > 1 else ""
        raise KnobError(f"{what} must be a whole number from 0 to {MAX_SEED}{span}, not {first!r}")


class OutOfTime(BaseException):
    """The budget ran out: raised in whatever was running, so no ``except Exception`` on the way swallows it."""


class Budget:
    """The clock of one world: how much is left, and notes on progress at most every few seconds."""

    def __init__(self, seconds: float | None, note=None, clock=time.monotonic) -> None:
        self.seconds, self.note, self.clock = seconds, note, clock
        self.started = clock()
        self.tried = 0   # drafts begun
        self.phase = "starting"

    def left(self) -> float | None:
        """Seconds left (None: no budget); OutOfTime once there are none."""
        if self.seconds is None:
            return None
        left = self.seconds - (self.clock() - self.started)
        if left <= 0:
            raise OutOfTime()
        return left

    def progress(self, phase: str, say: bool = False) -> None:
        """What is being done now: the heartbeat repeats it; ``say`` notes it at once."""
        self.phase = phase
        if say and self.note is not None:
            self.note(self._said())

    def _said(self) -> str:
        spent = self.clock() - self.started
        return f"{self.phase} ({spent:.0f} s" + (f" of {self.seconds:g})" if self.seconds else ")")

    @contextlib.contextmanager
    def enforced(self):
        """Within this block the budget interrupts even code that never looks at the clock (see the module),
        and a note on what is being done comes every few seconds (a large world is silent work otherwise)."""
        stop = threading.Event()
        if self.note is not None:
            def beat():
                while not stop.wait(HEARTBEAT):
                    self.note(self._said())
            threading.Thread(target=beat, daemon=True, name="generate-heartbeat").start()
        try:
            with self._alarm():
                yield self
        finally:
            stop.set()

    @contextlib.contextmanager
    def _alarm(self):
        usable = (self.seconds is not None and hasattr(signal, "setitimer")
                  and threading.current_thread() is threading.main_thread()
                  and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None))
        if not usable:
            yield
            return

        def ring(signum, frame):
            raise OutOfTime()

        signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, max(self.left(), 0.001))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)


def too_slow(seed: int, seconds: float, knobs: dict[str, tuple[int, int]], tried: int) -> KnobError:
    """What to say when a world's budget ran out: the knob that grew most from its default first."""
    grown = sorted(knobs, key=lambda k: -knobs[k][0] / knobs[k][1])
    first, others = grown[0], ", ".join(f"--{k} {knobs[k][0]}" for k in grown[1:])
    return KnobError(f"seed {seed}: no world made within the budget of {seconds:g} s ({plural(tried, 'draft')} begun):"
                     f" --{first} {knobs[first][0]} (default {knobs[first][1]}) makes worlds too big to solve in"
                     f" time; lower it{f', or {others}' if others else ''}, or give more time with --budget")
