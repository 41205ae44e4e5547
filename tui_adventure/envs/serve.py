"""``adventure serve``: the Gymnasium environment over HTTP and WebSocket, as an OpenEnv server.

OpenEnv (``openenv-core``, the ``[openenv]`` extra) gives the protocol, the
session bookkeeping and the client; what this module adds is what a server
open to other processes needs and OpenEnv leaves to the environment:

* isolation: every WebSocket client gets its own ``AdventureEnv`` and its own
  copy of the world (a World holds parser and state caches, so sharing one
  between sessions' threads would be shared mutable state);
* a closed set of worlds: a client names a packaged world, the server's own
  WORLD, or a file under the folder given with ``--worlds``; nothing else on
  the server's disk can be opened (or probed through error messages);
* bounds: at most ``max_sessions`` sessions (OpenEnv refuses the next with
  ``CAPACITY_REACHED``), an idle timeout, request and message sizes, command
  length; each violation is answered with a message saying which bound;
* errors as answers: a bad world, option, command or message is reported to
  the client that sent it, never raised through the server.

OpenEnv's own idle reaper is not used: it frees the slot but leaves the
connection open on a closed environment. The idle timeout here closes the
connection itself (code 1001), and OpenEnv then frees the session as for any
disconnect. Its HTTP ``/reset`` and ``/step`` build a fresh environment per
request (stateless by OpenEnv's design): sessions exist on ``/ws`` only.
The app is ``create_fastapi_app``, what ``create_app`` returns unless the
variable ``ENABLE_WEB_INTERFACE`` is set: then it would add a Gradio page
playing one environment shared by every visitor, outside the session limit,
and a server's surface should not change with its environment's variables.
"""

from __future__ import annotations

import functools
import logging
import signal
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from ..catalog import native_worlds, open_world
from ..instances import packaged
from ..engine.world import World
from ..zmachine.game import StorySource
from ..engine.yamlpos import SourceErrors
from .env import ACTION_CHARS, INFOS, REWARDS, RULES, AdventureEnv
from .serve_bounds import MAX_MESSAGE_BYTES, Bounds, QuietLog, ReapingH11

CHEAP_INFOS = ("goals", "goals_achieved", "goal_score", "turn", "max_turns")   # no planner search per step
MAX_NAME_CHARS = 512
MAX_PART_BYTES = 255          # a file name's limit on every common file system
MAX_SEED = 2 ** 63 - 1
RESET_OPTIONS = ("world", "seed", "episode_id", "rules", "reward", "infos")


class ServeError(ValueError):
    """A client's mistake, answered with this message (HTTP 400; a WebSocket error frame)."""


class EpisodeError(ServeError):
    """A step the episode's state does not allow (HTTP 409)."""


# -- the protocol's models ------------------------------------------------------------------------
class AdventureAction(Action):
    # the length is checked in step, not by the model: pydantic's refusal reaches an OpenEnv client as a
    # bare "Invalid message", where the step's own says which bound
    command: str = Field(description="one command, as a player types it",
                         json_schema_extra={"maxLength": ACTION_CHARS})


class AdventureObservation(Observation):
    text: str = Field(default="", description="what the game says")
    world: str = Field(default="", description="the world's name as the client gave it (or the default)")
    truncated: bool = Field(default=False, description="the episode ran out of turns")
    goals: list[str] | None = None
    goals_achieved: list[str] | None = None
    goal_score: int | None = None
    turn: int | None = None
    max_turns: int | None = None
    par: int | None = None
    progress: float | None = None
    admissible_commands: list[str] | None = None


class AdventureState(State):
    world: str | None = None
    done: bool = False


# -- which worlds a client may name ---------------------------------------------------------------
@dataclass(frozen=True)
class ServeConfig:
    world: str = "house"                      # the default world, and always nameable as given
    worlds_dir: Path | None = None            # files under it may be named by relative path
    max_sessions: int = 8
    idle_timeout: float | None = 300.0
    infos: tuple[str, ...] = CHEAP_INFOS      # what observations carry unless a reset asks for less
    native: dict[str, Path] = field(default_factory=native_worlds)

    def open(self, name: str | None) -> tuple[str, World | StorySource]:
        """The world a reset names: loaded afresh for the session that asked (see the module's note)."""
        if name is None or name == self.world:
            return self.world, open_world(self.world)
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_CHARS:
            raise ServeError(f"world must be a non-empty string of at most {MAX_NAME_CHARS} characters")
        try:
            if packaged.is_name(name):
                return name, packaged.world(name)
            if name in self.native:   # by its file: a bare name would try the server's working folder first
                return name, open_world(self.native[name])
            path = self._served_file(name)
            if path is not None:
                return name, open_world(path)
        except SourceErrors as exc:
            raise ServeError(f"world {name!r}: {exc}") from None
        where = ", or a .yaml file under the server's --worlds folder by its relative path" if self.worlds_dir else ""
        raise ServeError(f"unknown world {name!r}: name a packaged world ({', '.join(sorted(self.native))},"
                         f" clembench/<experiment>/<game_id>; adventure list shows them), the server's"
                         f" {self.world!r}{where}")

    def _served_file(self, name: str) -> Path | None:
        """The file ``name`` names under ``--worlds``: a plain relative path (no ``..``, not absolute, each part a
        file name the system can hold) to a .yaml file that, links resolved, still lies in the folder. Anything
        else is None, whatever the disk holds: an error from the file system would tell the client where the
        folder is (an over-long name answered "[Errno 36] File name too long: '/abs/path/...'")."""
        if self.worlds_dir is None or not _plain_relative(name):
            return None
        try:
            root = self.worlds_dir.resolve()
            path = (root / name).resolve()
            # symlinks are resolved first, so a link inside the folder cannot lead out of it
            if path.is_relative_to(root) and path.suffix in (".yaml", ".yml") and path.is_file():
                return path
        except (OSError, RuntimeError, ValueError):
            pass
        return None


def _plain_relative(name: str) -> bool:
    parts = name.split("/")
    return not name.startswith("/") and "\\" not in name and "\0" not in name and all(
        part not in ("", ".", "..") and len(part.encode("utf-8", "surrogatepass")) <= MAX_PART_BYTES for part in parts)


# -- the environment ------------------------------------------------------------------------------
class AdventureEnvironment(Environment[AdventureAction, AdventureObservation, AdventureState]):
    """One session's game. OpenEnv runs each session's calls on that session's own thread."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig) -> None:
        super().__init__()
        self.config = config
        self.env: AdventureEnv | None = None   # made at the first reset: OpenEnv builds one per HTTP request
        self._world_name: str | None = None
        self._settings: tuple = ()
        self._state = AdventureState()

    def reset(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> AdventureObservation:
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ServeError(f"unknown reset option {unknown[0]!r} (known: {', '.join(RESET_OPTIONS)})")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise ServeError(f"seed must be a whole number from 0 to {MAX_SEED}")
        if episode_id is not None and (not isinstance(episode_id, str) or len(episode_id) > 255):
            raise ServeError("episode_id must be a string of at most 255 characters")
        rules, reward = options.get("rules", "game"), options.get("reward", "goal")
        if rules not in RULES:
            raise ServeError(f"rules must be one of {', '.join(RULES)}")
        if reward not in REWARDS:
            raise ServeError(f"reward must be one of {', '.join(REWARDS)}")
        infos = options.get("infos", self.config.infos)
        if not isinstance(infos, (list, tuple)) or not all(x in self.config.infos for x in infos):
            raise ServeError(f"infos must be a list drawn from what this server offers: {', '.join(self.config.infos)}"
                             f" (adventure serve --infos chooses; known: {', '.join(INFOS)})")
        settings = (options.get("world", self.config.world), rules, reward, tuple(infos))
        if self.env is None or settings != self._settings:   # the same again keeps the env (and its par cache)
            name, world = self.config.open(options.get("world"))
            self.env = AdventureEnv(world=world, reward=reward, rules=rules, infos=tuple(infos))
            self._world_name, self._settings = name, settings
        text, info = self.env.reset(seed=seed)
        self._state = AdventureState(episode_id=episode_id or str(uuid.uuid4()), step_count=0,
                                     world=self._world_name)
        return self._observation(text, 0.0, False, False, info)

    def step(self, action: AdventureAction, timeout_s: float | None = None, **kwargs: Any) -> AdventureObservation:
        if len(action.command) > ACTION_CHARS:
            raise ServeError(f"a command holds at most {ACTION_CHARS} characters, this one {len(action.command)}")
        if self.env is None:
            raise EpisodeError("no episode yet: reset first (over HTTP every request is a fresh environment;"
                               " sessions live on the WebSocket /ws)")
        if self._state.done:
            raise EpisodeError("the episode has ended: reset to play again")
        text, reward, terminated, truncated, info = self.env.step(action.command)
        self._state = self._state.model_copy(update={"step_count": self._state.step_count + 1,
                                                     "done": terminated or truncated})
        return self._observation(text, reward, terminated, truncated, info)

    @property
    def state(self) -> AdventureState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="tui-adventure", version=_version(),
                                   description=f"text adventures as benchmarks; default world {self.config.world}",
                                   documentation_url="docs/serve.md")

    def close(self) -> None:
        self.env = None

    def _observation(self, text: str, reward: float, terminated: bool, truncated: bool,
                     info: dict) -> AdventureObservation:
        return AdventureObservation(text=text, reward=reward, done=terminated or truncated, truncated=truncated,
                                    world=self._world_name or "", **info)


def _version() -> str:
    from .. import __version__

    return __version__


# -- the client -----------------------------------------------------------------------------------
class AdventureClient(EnvClient[AdventureAction, AdventureObservation, AdventureState]):
    """OpenEnv's WebSocket client for this server: ``await client.step("open door")`` takes a string too.

    ``async with AdventureClient(base_url="http://127.0.0.1:8000") as env`` (or ``.sync()``);
    ``reset(world="manor", seed=1)`` names the world.
    """

    def _step_payload(self, action: AdventureAction | str) -> dict:
        return {"command": action if isinstance(action, str) else action.command}

    def _parse_result(self, payload: dict) -> StepResult[AdventureObservation]:
        obs = AdventureObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                                   done=payload.get("done", False))
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict) -> AdventureState:
        return AdventureState(**payload)


# -- the app and the command ----------------------------------------------------------------------
def build_app(config: ServeConfig) -> Bounds:
    """The OpenEnv app for ``config``, wrapped in its bounds (an ASGI app for uvicorn or a test client)."""
    app: FastAPI = create_fastapi_app(functools.partial(AdventureEnvironment, config), AdventureAction,
                                      AdventureObservation, max_concurrent_envs=config.max_sessions)

    @app.exception_handler(ServeError)
    async def client_mistake(request: Request, exc: ServeError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409 if isinstance(exc, EpisodeError) else 400)

    @app.exception_handler(Exception)
    async def server_fault(request: Request, exc: Exception) -> JSONResponse:
        # the server's own fault: the traceback goes to its log, the client learns nothing of its disk
        logging.getLogger("uvicorn.error").error("internal error answering %s", request.url.path, exc_info=exc)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); the server's log has the details"},
                            status_code=500)

    return Bounds(app, idle_timeout=config.idle_timeout)


def serve(config: ServeConfig, host: str = "127.0.0.1", port: int = 8000) -> int:
    """Run until SIGINT or SIGTERM; a SIGTERM (how service managers stop a server) exits 0."""
    import uvicorn

    if not 0 <= port <= 65535:
        print(f"adventure serve: --port must be from 0 to 65535, not {port}", file=sys.stderr)
        return 2
    app = build_app(config)   # fails here, before the port opens, if the default world is broken
    timeout = f"{config.idle_timeout:g} s" if config.idle_timeout else "none"
    print(f"adventure serve: {config.world} on http://{host}:{port} (WebSocket sessions at ws://{host}:{port}/ws),"
          f" at most {config.max_sessions} sessions, idle timeout {timeout}", file=sys.stderr, flush=True)
    server = uvicorn.Server(uvicorn.Config(
        app, host=host, port=port, log_level="warning", ws_max_size=4 * MAX_MESSAGE_BYTES, http=ReapingH11,
        limit_concurrency=config.max_sessions + 64, timeout_keep_alive=5, h11_max_incomplete_event_size=MAX_MESSAGE_BYTES,
        timeout_graceful_shutdown=5))
    quiet = QuietLog()
    logging.getLogger("uvicorn.error").addFilter(quiet)   # configured by Config above, so added after it
    stopped: list[int] = []
    # uvicorn shuts down gracefully, then raises the signal again: caught here, it ends the run, not the process
    previous = signal.signal(signal.SIGTERM, lambda sig, frame: stopped.append(sig))
    try:
        server.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    if stopped:
        print("adventure serve: stopped", file=sys.stderr)
    return 0 if server.started else 1


def configure(world: str | None, worlds_dir: str | None, max_sessions: int, idle_timeout: float,
              infos: str | None) -> ServeConfig:
    """The command line's choices, checked; ``ServeError`` says which is wrong."""
    if worlds_dir is not None and not Path(worlds_dir).is_dir():
        raise ServeError(f"--worlds {worlds_dir}: not a folder")
    if not 1 <= max_sessions <= 10_000:
        raise ServeError("--max-sessions must be from 1 to 10000")
    if idle_timeout < 0:
        raise ServeError("--idle-timeout must be 0 (none) or more seconds")
    chosen = CHEAP_INFOS if infos is None else tuple(x.strip() for x in infos.split(",") if x.strip())
    unknown = [x for x in chosen if x not in INFOS]
    if unknown:
        raise ServeError(f"--infos: unknown {unknown[0]!r} (known: {', '.join(INFOS)})")
    config = ServeConfig(world=world or "house", worlds_dir=Path(worlds_dir) if worlds_dir else None,
                         max_sessions=max_sessions, idle_timeout=idle_timeout or None, infos=chosen)
    try:
        open_world(config.world)
    except SourceErrors as exc:
        raise ServeError(str(exc)) from None
    return config
