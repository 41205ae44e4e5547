"""Debugging an instance by hand: facts, admissible commands, the optimal plan, goals, events, turns.

Everything here reads the session; the only writes are the two ways out: a
chosen admissible command is returned to the play screen to be played as if
typed, and jumping back to an earlier turn undoes the turns after it (the
records follow). The plan is searched in a thread, so a large world never
freezes the screen.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from ..engine.world import World
from ..keyboard.session import Session
from ..engine.text import plural, visible


TABS = ("tab-facts", "tab-commands", "tab-plan", "tab-goals", "tab-events", "tab-turns")


class DebugScreen(Screen[str | None]):
    BINDINGS = [
        Binding("escape", "close", "Back", id="debug.close"),
        Binding("f4", "close", "Back", show=False, id="debug.close-f4"),
        # keys the filter's Input leaves alone, and that reach the app through tmux and ssh
        Binding("alt+right,ctrl+pagedown,ctrl+n", "tab(1)", "Next tab", id="debug.next-tab"),
        Binding("alt+left,ctrl+pageup,ctrl+b", "tab(-1)", "Previous tab", id="debug.previous-tab"),
        Binding("slash", "filter", "Filter", id="debug.filter"),
        *(Binding(str(i), f"show_tab('{tab}')", tab[4:].title(), show=False, id=f"debug.{tab}")
          for i, tab in enumerate(TABS, 1)),
    ]

    def __init__(self, session: Session, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="debug-tabs"):
            with TabPane("Facts", id="tab-facts"):
                with Vertical():
                    yield Input(placeholder="filter facts (e.g. book, at(, open)", id="fact-filter")
                    yield OptionList(id="facts")
            with TabPane("Commands", id="tab-commands"):
                yield OptionList(id="commands")
            with TabPane("Plan", id="tab-plan"):
                yield Static("searching...", id="plan")
            with TabPane("Goals", id="tab-goals"):
                yield Static("", id="goal-facts")
            with TabPane("Events", id="tab-events"):
                with VerticalScroll():
                    yield Static("", id="events")
            with TabPane("Turns", id="tab-turns"):
                yield OptionList(id="turns")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "debug: enter on a command plays it; enter on a turn goes back to it"
        s = self.session
        world, game = s.world, s.game
        if not isinstance(world, World):   # a game without our engine (a story file): what the one game interface has
            self.mount_game(s.playable)
        else:
            self.all_facts = game.facts()
            self.show_facts("")
            from ..engine.planning import Planner

            planner = Planner(world)
            self.query_one("#commands", OptionList).add_options(
                [Option(Text(c), id=c) for c in planner.admissible_commands(game.state)])
            goals = []
            for g in world.goals:
                goals.append(f"{'[x]' if g in game.achieved else '[ ]'} {g}")
            self.query_one("#goal-facts", Static).update(Text("\n".join(goals) or "(no goals)"))
        events = []
        for turn in s.episode.turns:    # every turn, every event whole: the pane scrolls
            fail = f"  fail: {turn.fail['phase']}/{turn.fail['type']}" if turn.fail else ""
            events.append(f"turn {turn.index}: {turn.command or turn.reply!r}{fail}")
            events.extend(f"    {kind}: {content}" for kind, content in turn.events)
        self.query_one("#events", Static).update(Text(visible("\n".join(events)) or "(no turns yet)"))
        turns = [Option("0: the start", id="0")]
        turns += [Option(Text(visible(f"{t.index}: {t.command if t.command is not None else t.reply}")), id=str(t.index))
                  for t in s.episode.turns]
        self.query_one("#turns", OptionList).add_options(turns)
        if isinstance(world, World):   # our engine's game: the planner's tabs
            self.search_plan(world)
            self.compare_moves(world)
        self.query_one("#fact-filter", Input).focus()   # typing goes somewhere at once

    def mount_game(self, play) -> None:
        """The tabs of a game without our engine: its object tree as the facts, its valid actions (found in
        a worker), no goals as facts and no planner (a known walkthrough's length instead)."""
        tree = play.object_tree()
        self.all_facts = tree if tree is not None else []
        self.show_facts("")
        if tree is None:
            self.query_one("#facts", OptionList).border_title = "no object tree: Jericho reads it on its catalogued games"
        self.query_one("#goal-facts", Static).update(Text("(no goals as facts: this game keeps a score of its own)"))
        walk = play.walkthrough
        self.query_one("#plan", Static).update(Text(
            "no planner for this game" + (f"; a known walkthrough takes {plural(len(walk), 'command')} (not proven"
                                          " optimal)" if walk else "")))
        self.query_one("#commands", OptionList).add_options(["finding the valid actions..."])
        self.find_valid_actions(play)

    @work(thread=True, exclusive=True, group="valid-actions")
    def find_valid_actions(self, play) -> None:
        """The game's valid actions, off the UI thread (Jericho tries hundreds of commands)."""
        try:
            found = play.valid_actions()
        except Exception as exc:   # the interpreter's own failure: said, never raised into the screen
            found, why = None, f"(the valid actions could not be found: {type(exc).__name__})"
        else:
            why = ("(no valid actions: Jericho finds them on its catalogued games only, with spaCy's"
                   " en_core_web_sm model installed; python -m spacy download en_core_web_sm)")
        self.app.call_from_thread(self._show_valid_actions, found, why)

    def _show_valid_actions(self, found: list[str] | None, why: str) -> None:
        commands = self.query_one("#commands", OptionList)
        commands.clear_options()
        if found is None:
            commands.add_options([Text(why)])
        else:
            commands.add_options([Option(Text(visible(c)), id=c) for c in found] or ["(none found)"])

    def show_facts(self, needle: str) -> None:
        facts = self.query_one("#facts", OptionList)
        facts.clear_options()
        needle = needle.strip().lower()
        shown = [f for f in self.all_facts if needle in f.lower()]
        facts.add_options([Text(f) for f in shown[:2000]] or ["(no fact matches)"])
        facts.border_title = f"{len(shown)} of {plural(len(self.all_facts), 'fact')}"

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "fact-filter":
            self.show_facts(event.value)

    @work(thread=True, exclusive=True)
    def search_plan(self, world: World) -> None:
        from ..engine.planning import Planner, PlannerLimit

        try:
            plan = Planner(world, max_nodes=200_000).solve(self.session.game.state)
        except PlannerLimit:
            text = "the planner gave up (too many states)"
        else:
            if plan is None:
                text = "no plan: the goals cannot be reached from here"
            elif not plan.commands:
                text = "all goals are achieved"
            else:
                text = (f"{plural(plan.par, 'turn')} from here ({plural(plan.expanded, 'state')}, {plan.seconds:.2f} s):\n"
                        + "\n".join(f"{i}. {c}" for i, c in enumerate(plan.commands, 1)))
        self.app.call_from_thread(self.query_one("#plan", Static).update, Text(text))

    @work(thread=True, exclusive=True, group="moves")
    def compare_moves(self, world: World) -> None:
        """Beside each turn of the Turns tab, the move the exact planner would have made from the state
        before it: where a model (or a person) first left the optimal path."""
        from ..engine.game import Game
        from ..engine.planning import Planner, PlannerLimit

        s = self.session
        planner = Planner(world, max_nodes=50_000, max_seconds=1.0)
        game, scratch = Game(world), Game(world)

        def after(command: str):       # what a move does, so "west" and "go west" count as the same move
            scratch.set_state(game.state)
            scratch.step(command)
            return scratch.state.facts

        def best_from(state):   # (the planner's first move, par) from a state; par None when unknown
            try:
                plan = planner.solve(state)
            except PlannerLimit:
                return "?", None
            if plan is None:
                return "no plan", None
            return (plan.commands[0] if plan.commands else "done"), plan.par

        labels = []
        best, par = best_from(game.state)
        for turn in s.episode.turns:
            move = turn.command if turn.command is not None else turn.reply
            same = move == best or (turn.command is not None and best not in ("?", "no plan", "done")
                                    and after(move) == after(best))
            if turn.command is not None:
                game.step(turn.command)
            next_best, next_par = best_from(game.state)
            # another move may be as good as the planner's choice: what it left to do says so
            optimal = same or (par is not None and next_par is not None and next_par == par - 1)
            labels.append(f"{turn.index}: {move}   = optimal" if optimal and same else
                          f"{turn.index}: {move}   = optimal (as {best})" if optimal else
                          f"{turn.index}: {move}   ≠ optimal: {best}")
            best, par = next_best, next_par
        self.app.call_from_thread(self._show_moves, labels)

    def _show_moves(self, labels: list[str]) -> None:
        turns = self.query_one("#turns", OptionList)
        for i, label in enumerate(labels, 1):
            try:
                turns.replace_option_prompt(str(i), Text(visible(label)))
            except Exception:   # the list changed meanwhile (a jump back): leave it
                return

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "commands":
            self.dismiss(event.option.id)
        elif event.option_list.id == "turns":
            assert event.option.id is not None   # every turn's option has its number for id (on_mount)
            target = int(event.option.id)
            back = len(self.session.episode.turns) - target
            if back > 0:
                self.session.undo(back, kind="jump back")
                self.notify(f"back at turn {target}")
            self.dismiss("")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        i = TABS.index(tabs.active) if tabs.active in TABS else 0
        self.action_show_tab(TABS[(i + step) % len(TABS)])

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        focus = {"tab-facts": "#fact-filter", "tab-commands": "#commands", "tab-turns": "#turns"}.get(tab)
        if focus:
            self.query_one(focus).focus()

    def action_filter(self) -> None:
        self.action_show_tab("tab-facts")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # digits and "/" are text while the filter has the keyboard
        if action in ("show_tab", "filter") and isinstance(self.focused, Input):
            return False
        return True
