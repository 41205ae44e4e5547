"""The panels' data read from a session: our worlds' from the engine's state, any other game's from the
one game interface alone (``games.interface.Playable``)."""

from __future__ import annotations

from ..engine.metrics import turn_ratio
from ..players.prompting import goal_text
from .figures import Panels


def world_panels(session, progress: bool = False) -> Panels:
    """The panels of one of our worlds (rooms, exits, goals and the planner's figures); ``progress``:
    with the planner's progress (off the UI thread)."""
    world, ep, st = session.world, session.episode, session.game.state
    style = world.style
    room = style.player_room(st)
    # a direction's target is named once visited (or when shown): a room's text names its exits, not
    # what lies behind them; exits without a direction are named by the room's text itself (clembench)
    exits = [f"{label}: {world.name_of(target) if session.show.unvisited_exits or target in session.visited else '?'}"
             if label else world.name_of(target) for label, target in session.exits(st, room)]
    inventory = [world.name_of(x) for x in style.held(st)]
    achieved = session.game.achieved
    goals = [(goal_text(world, g), g in achieved) for g in world.goals]
    last = ep.turns[-1].goal_score if ep.turns and session.changed_by_turn else 0
    turns = len(ep.turns)
    par = session.par(compute=progress and session.show.par)
    over = session.moves_over_par(par)
    tr = turn_ratio(session.moves(), par, ep.max_turns) if par is not None else None
    o = ep.outcome
    panels = Panels(title=world.title, room=world.name_of(room).capitalize() if room else "?", exits=sorted(exits),
                  inventory=inventory, goals=goals, goals_achieved=len(achieved), goal_count=len(world.goals),
                  last_goal_change=last, turns=turns, max_turns=ep.max_turns, par=par,
                  par_upstream=session.par_upstream(), par_at_least=session.par_at_least(), moves_over_par=over,
                  turn_ratio=tr, main_score=o.main_score, progress=session.progress() if progress else None,
                  player=session.whose_turn(), ended=ep.ended, par_pending=session.par_pending(),
                  outcome=session.outcome_text() if ep.ended else "",
                  invalid=sum(1 for t in ep.turns if t.fail is not None or t.invalid_format))
    return panels


def game_panels(session) -> Panels:
    """The panels of a game without our engine, from the one game interface alone: where the game
    says the player is, what it says they carry (read without a move), its score of its max score and
    moves, and the walkthrough's length where it has one (not par: it is not proven optimal)."""
    ep, play = session.episode, session.playable
    status = play.status()
    o = ep.outcome
    last = ep.turns[-1].goal_score if ep.turns and session.changed_by_turn else 0
    walk = play.walkthrough
    return Panels(title=play.title, room=play.location(), exits=[], inventory=play.inventory(), goals=[],
                  goals_achieved=status.score, goal_count=status.max_score or 0, last_goal_change=last,
                  turns=len(ep.turns), max_turns=ep.max_turns, par=play.par, par_upstream=None,
                  moves_over_par=None, turn_ratio=None, main_score=o.main_score, progress=None,
                  player=session.whose_turn(), ended=ep.ended, outcome=session.outcome_text() if ep.ended else "",
                  invalid=sum(1 for t in ep.turns if t.fail is not None or t.invalid_format),
                  scored=(status.score, status.max_score, status.moves),
                  walkthrough=len(walk) if walk else None)


def metrics_so_far(session, par: int | None):
    """The episode so far in the game view (``engine.metrics.episode_metrics``), or None without a par."""
    if par is None or session.game is None:
        return None
    from ..engine.metrics import TurnData, episode_metrics

    ep = session.episode
    data = [TurnData(t.command or t.reply, t.fail or ({"invalid_format": t.invalid_format} if t.invalid_format
                                                     else None), t.goal_score) for t in ep.turns[:session.moves()]]
    if data:
        last = data[-1]
        data[-1] = TurnData(last.command, last.fail, last.goal_score, len(session.game.achieved))
    return episode_metrics(data, par=par, max_turns=ep.max_turns, goals_total=len(session.world.goals),
                           goals_at_start=len(session.game.achieved))
