"""The Gymnasium ids, registered when Gymnasium is imported, whichever of the two is imported first.

``import tui_adventure`` must make ``gymnasium.make("tui_adventure/World-v0")``
work, but importing Gymnasium (and NumPy with it) on every ``adventure``
command would cost a quarter of a second that nothing there uses. So the
package registers at once when Gymnasium is already loaded, and otherwise
leaves a finder on ``sys.meta_path`` that registers right after Gymnasium's
own module runs, the first time anything imports it.
"""

from __future__ import annotations

import importlib.util
import sys

ENTRY = "tui_adventure.envs.playable:make_env"   # AdventureEnv, or GameEnv for a story file
NATIVE = ("tutorial", "house", "manor")


def register_ids() -> None:
    import gymnasium

    if "tui_adventure/World-v0" in gymnasium.registry:
        return
    gymnasium.register("tui_adventure/World-v0", entry_point=ENTRY)
    for name in NATIVE:
        gymnasium.register(f"tui_adventure/{name}-v0", entry_point=ENTRY, kwargs={"world": name})
    from ..instances import packaged

    for name in packaged.names("clembench"):   # clembench/<experiment>/<id> -> tui_adventure/clembench.<experiment>.<id>-v0
        gymnasium.register(f"tui_adventure/{name.replace('/', '.')}-v0", entry_point=ENTRY, kwargs={"world": name})


class _AfterGymnasium:
    """A meta path finder (the protocol needs only ``find_spec``; importlib.abc costs 10 ms to import)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module):
            run(module)
            try:
                register_ids()
            except Exception:   # registering must never break importing Gymnasium
                pass

        loader.exec_module = exec_module
        return spec


def register_when_imported() -> None:
    if "gymnasium" in sys.modules:
        register_ids()
    elif not any(isinstance(f, _AfterGymnasium) for f in sys.meta_path):
        if importlib.util.find_spec("gymnasium") is not None:
            sys.meta_path.insert(0, _AfterGymnasium())
