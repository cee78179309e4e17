"""The inspector app: wiring of screens, the load worker and app-wide actions.

``make_app`` is the factory the CLI, the screenshot command, the benchmark and the
tests all use; the data source is injectable (``session_factory``) so tests can feed a
fixed capture without the filesystem.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from traceview.ui.detail_screen import DetailScreen
from traceview.ui.diff_screen import DiffBodiesScreen, DiffScreen
from traceview.ui.diff_worker import DiffRequest
from traceview.ui.help_screen import HelpScreen
from traceview.ui.list_screens import ConversationsScreen, ProblemsScreen
from traceview.ui.loader import run_session
from traceview.ui.main_screen import MainScreen
from traceview.ui.messages import LoadFinished, LoadProgress, ProblemsFound, TurnsLoaded
from traceview.ui.state import LoadState

SessionFactory = Callable[[list[str], Any], Any]
VIEWS = ("turns", "detail", "conversations", "problems", "help", "diff", "ledger", "objects")


def default_session(paths: list[str], options: Any) -> Any:
    from traceview.analysis import Options, Session

    return Session(paths, options if options is not None else Options())


def follow_session(paths: list[str], options: Any) -> Any:
    """A session that keeps reading what is appended (``--follow``, ``F``)."""
    from traceview.analysis import Options
    from traceview.analysis.follow import FollowSession

    return FollowSession(paths, options if options is not None else Options())


class InspectorApp(App[int]):
    """Turns side by side with what they cost; everything else is one key away."""

    CSS_PATH = "inspector.tcss"
    TITLE = "traceview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("c", "conversations", "Conversations", id="app.conversations"),
        Binding("p", "problems", "Problems", id="app.problems"),
        Binding("d", "diff", "Diff", tooltip="Diff this conversation against the provider copy",
                id="app.diff"),
        Binding("s", "screenshot", "Screenshot", id="app.screenshot"),
        Binding("F", "follow", "Follow", tooltip="Follow the capture as it is written",
                id="app.follow"),
        Binding("R", "reload", "Reload", show=False, tooltip="Read the capture again",
                id="app.reload"),
        # Not in the footer (it is full, and every screen's snapshot would move): listed by
        # `?` and the command palette.
        Binding("l", "ledger", "Ledger", tooltip="Carried context of this conversation",
                show=False, id="app.ledger"),
        Binding("o", "objects", "Objects", tooltip="Provider objects the capture touched",
                show=False, id="app.objects"),
    ]

    def __init__(
        self,
        paths: list[str],
        options: Any = None,
        *,
        screenshot_dir: str | os.PathLike[str] | None = None,
        session_factory: SessionFactory | None = None,
        follow: bool = False,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        #: The theme to start with (--theme, else the remembered one); saved when changed.
        self.start_theme = theme
        self.remember_theme = False
        from traceview.ui.follow import Follow

        self.paths = list(paths)
        self.options = options
        self.screenshot_dir = Path(screenshot_dir) if screenshot_dir else Path("screenshots")
        self.session_factory = session_factory or (follow_session if follow else default_session)
        self.session = self.session_factory(self.paths, options)
        self.follow = Follow(self)
        self.follow.on = follow
        self.state = LoadState()
        self.main = MainScreen()
        # The diff view (`d`): a snapshot to compare with offline instead of fetching, where
        # `w` writes snapshots, and fetch settings (None: the CLI's defaults).
        self.items_path: str | None = None
        self.snapshot_dir = Path(".")
        self.diff_timeout: float | None = None
        self.diff_max_retries: int | None = None

    #: Display names for paths the user never typed (stdin spooled to a temp file).
    source_aliases: dict[str, str] = {}

    @property
    def sources(self) -> list[str]:
        capture = getattr(self.session, "capture", None)
        names = list(getattr(capture, "sources", None) or self.paths)
        return [self.source_aliases.get(n, n) for n in names]

    def follow_label(self) -> str:
        """What the title says about follow mode ("" when not following)."""
        if self.follow.on:
            return "● following (F pauses)"
        if hasattr(self.session, "poll"):
            return "following paused (F)"
        return ""

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:
        """Every notification (from any screen) made visible and redacted, never markup.

        Screens' ``self.notify`` lands here, so no call site can forget: messages quote
        file names, load errors and provider replies.
        """
        from traceview.safety.sanitise import line

        kwargs["markup"] = False
        super().notify(line(message), title=line(title) if title else "", **kwargs)

    #: Binding id → key string, from the user's keymap file (see ui/keymap.py).
    keymap: dict[str, str] = {}

    def on_mount(self) -> None:
        if self.keymap:
            self.set_keymap(self.keymap)
        if self.start_theme:
            if self.start_theme in self.available_themes:
                self.theme = self.start_theme
            else:
                known = ", ".join(sorted(self.available_themes))
                self.notify(f"unknown theme {self.start_theme!r}; themes: {known}",
                            severity="warning", markup=False)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        # The load worker is CPU-bound Python; a shorter GIL switch interval lets the
        # event loop take the GIL back within ~1 ms so keys stay responsive while loading.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, 0.001))
        self.run_worker(self._load, thread=True, name="load capture", group="load")

    def _theme_changed(self, theme: Any) -> None:
        """Repaint every cached row now (not at the next resize), and remember the theme."""
        from traceview.ui.row_table import RowTable

        for screen in self.screen_stack:
            for table in screen.query(RowTable):
                table.restyle()
        if self.remember_theme:
            from traceview.ui.settings import save_theme

            if save_theme(theme.name) is None:
                self.notify("could not save the theme to the config file", markup=False)

    def _load(self) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        lowered = False

        def post(message: Any) -> None:
            nonlocal lowered
            self.post_message(message)
            if not lowered and isinstance(message, TurnsLoaded):
                # The first rows are out at full speed; the rest of the load now yields
                # the CPU to the event loop, so keys are answered while it runs.
                lowered = True
                _lower_priority(load_nice())

        # Its own thread, not the worker pool's: a pool thread would keep the lower
        # priority for whatever it runs next (an unprivileged thread cannot raise it back).
        import threading

        thread = threading.Thread(
            target=run_session, args=(self.session, post, lambda: worker.is_cancelled),
            name="traceview load", daemon=True)
        thread.start()
        thread.join()

    # -- messages from the load worker ---------------------------------------------------
    def on_turns_loaded(self, message: TurnsLoaded) -> None:
        # Millions of long-lived report objects make every full GC pass slower (100+ ms
        # pauses at a few hundred MB); freezing what is loaded keeps collections cheap.
        gc.freeze()
        touched = self.state.add_turns(message.turns)
        self.main.turns_added(message.turns, touched)
        self._refresh_lists()

    def on_problems_found(self, message: ProblemsFound) -> None:
        self.state.problems.extend(message.problems)
        self.main.refresh_title()
        self._refresh_lists(problems=True)

    def on_load_progress(self, message: LoadProgress) -> None:
        self.state.bytes_read = message.bytes_read
        self.state.total_bytes = message.total_bytes
        self.state.lines = message.lines
        self.main.refresh_title()

    def on_load_finished(self, message: LoadFinished) -> None:
        sys.setswitchinterval(self._switch_interval)
        self.state.finish(message.analysis, message.error)
        analysis = message.analysis
        # Problems the end-of-load passes added; by identity and by content, in one pass
        # (a list membership test per problem is quadratic on a damaged capture).
        known = {id(p) for p in self.state.problems}
        seen = {_problem_key(p) for p in self.state.problems}
        for problem in getattr(analysis, "problems", None) or []:
            if id(problem) not in known and _problem_key(problem) not in seen:
                seen.add(_problem_key(problem))
                self.state.problems.append(problem)
        if message.error:
            self.notify(f"load stopped: {message.error}", severity="error", markup=False)
        if self.main.key is None and self.state.by_key:
            self.main.show_conversation(next(iter(self.state.by_key)))
        if self.follow.on:
            self.follow.start()
        self.main.refresh_title()
        self.main._show_legend()
        self._refresh_lists(problems=True)

    def on_follow_updated(self, message: Any) -> None:
        analysis = message.analysis
        self.state.analysis = analysis
        for conv in getattr(analysis, "conversations", None) or []:
            self.state.conversations[str(conv.key)] = conv
        if message.replaced and len(self.paths) == 1 and os.path.islink(self.paths[0]):
            # `traceview proxy --rotate` keeps the path as a link to the current file: a
            # rotation is a new file to follow, read from its start.
            target = os.path.basename(os.readlink(self.paths[0]))
            self.notify(f"the capture rotated to {target}: following it", markup=False)
            self.action_reload()
            return
        if message.replaced and not self.follow.told_replaced:
            self.follow.told_replaced = True
            self.notify("the capture file was replaced or truncated: R reads it again",
                        severity="warning", markup=False)
        self.main.refresh_title()
        self.main._show_legend()
        self._refresh_lists(problems=True)

    async def action_quit(self) -> None:
        """`q` quits from the turns view (or a screen opened on its own); anywhere else it
        goes back, like esc (most screens bind q to back themselves)."""
        screen = self.screen
        if isinstance(screen, MainScreen) or len(self.screen_stack) <= 1:
            self.exit()
            return
        back = getattr(screen, "action_back", None)
        if back is not None:
            result = back()
            if hasattr(result, "__await__"):
                await result
        else:
            self.pop_screen()

    def action_follow(self) -> None:
        """F: follow the capture as it grows, or pause following."""
        if self.follow.on:
            self.follow.stop()
            self.notify("following paused", markup=False, timeout=2)
        elif hasattr(self.session, "poll"):
            self.follow.start()
            self.notify("following the capture", markup=False, timeout=2)
        else:
            # Opened without --follow: read it again as a followed capture.
            self.follow.on = True
            self.session_factory = follow_session
            self.action_reload()
            return
        self.main.refresh_title()

    def action_reload(self) -> None:
        """R: read the capture again from the start (after it was replaced)."""
        self.workers.cancel_group(self, "load")
        self.workers.cancel_group(self, "follow")
        while len(self.screen_stack) > 1 and self.screen is not self.main:
            self.pop_screen()
        try:
            self.session = self.session_factory(self.paths, self.options)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(f"reload failed: {exc}", severity="error", markup=False)
            return
        self.state = LoadState()
        self.follow.seen = None
        self.follow.told_replaced = False
        self.follow.busy = False
        self.main.reset()
        sys.setswitchinterval(min(self._switch_interval, 0.001))
        self.run_worker(self._load, thread=True, name="load capture", group="load")

    def _refresh_lists(self, problems: bool = False) -> None:
        screen = self.screen
        if isinstance(screen, ConversationsScreen) or (
            problems and isinstance(screen, ProblemsScreen)
        ) or (problems and type(screen).__name__ in ("LedgerScreen", "ObjectsScreen")):
            screen.refresh_data()  # type: ignore[attr-defined]

    # -- actions -------------------------------------------------------------------------
    def action_detail(self, raw: bool = False) -> None:
        turn = self.main.current_turn()
        if turn is None:
            self.notify("no turn selected yet", markup=False)
            return
        self.push_screen(DetailScreen(turn, raw=raw))

    def action_conversations(self) -> None:
        if not isinstance(self.screen, ConversationsScreen):
            self._show(ConversationsScreen(id="conversations"))

    def action_problems(self) -> None:
        if not isinstance(self.screen, ProblemsScreen):
            self._show(ProblemsScreen(id="problems"))

    def action_ledger(self) -> None:
        from traceview.ui.ledger_screen import LedgerScreen

        if not isinstance(self.screen, LedgerScreen):
            self._show(LedgerScreen(id="ledger-screen"))

    def action_objects(self) -> None:
        from traceview.ui.objects_screen import ObjectsScreen

        if not isinstance(self.screen, ObjectsScreen):
            self._show(ObjectsScreen(id="objects-screen"))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self._show(HelpScreen(id="help-screen"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `d` means nothing inside the diff itself: keep it out of that footer.
        if action == "diff" and isinstance(self.screen, DiffScreen | DiffBodiesScreen):
            return False
        return True

    def action_diff(self) -> None:
        """Open the diff of the selected turn's conversation against the provider copy."""
        if isinstance(self.screen, DiffScreen | DiffBodiesScreen):
            return
        if not self.state.done:
            self.notify("the capture is still loading: d works once it is read", markup=False)
            return
        screen = self.screen
        turn = screen.turn if isinstance(screen, DetailScreen) else self.main.current_turn()
        if turn is None:
            self.notify("no turn selected yet", markup=False)
            return
        request = DiffRequest(
            paths=list(self.paths), turn_index=turn.index,
            conversation=getattr(turn, "conversation", None), items_path=self.diff_items(),
            timeout=self.diff_timeout, max_retries=self.diff_max_retries,
            capture=getattr(self.session, "capture", None),
        )
        self.push_screen(DiffScreen(request))

    def diff_items(self) -> str | None:
        """The snapshot `d` compares with: --items, else — with no API key to fetch with —
        a ``<capture>.snapshot.json`` shipped beside the capture (the claims sample has one),
        so the diff works offline and says it is a snapshot, and from when."""
        if self.items_path is not None:
            return self.items_path
        if os.environ.get("OPENAI_API_KEY") or len(self.paths) != 1:
            return None
        capture = Path(self.paths[0])
        sibling = capture.with_name(capture.name.removesuffix(".jsonl") + ".snapshot.json")
        return str(sibling) if sibling.is_file() else None

    def _show(self, screen: Screen[Any]) -> None:
        while len(self.screen_stack) > 1 and not isinstance(self.screen, DetailScreen):
            self.pop_screen()
        self.push_screen(screen)

    def view_name(self) -> str:
        screen = self.screen
        if isinstance(screen, DetailScreen):
            return "detail"
        if isinstance(screen, ConversationsScreen):
            return "conversations"
        if isinstance(screen, ProblemsScreen):
            return "problems"
        if isinstance(screen, HelpScreen):
            return "help"
        if isinstance(screen, DiffScreen | DiffBodiesScreen):
            return "diff"
        name = type(screen).__name__
        if name in ("LedgerScreen", "ObjectsScreen"):
            return name.removesuffix("Screen").lower()
        return "turns"

    def screenshot_name(self) -> str:
        """``<capture>-<view>-turn<N>.svg``: says what the picture shows."""
        stem = Path(self.sources[0]).name if self.sources else "capture"
        for suffix in (".gz", ".jsonl", ".json"):
            stem = stem.removesuffix(suffix)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem) or "capture"
        screen = self.screen
        turn = screen.turn if isinstance(screen, DetailScreen) else self.main.current_turn()
        view = self.view_name()
        suffix = f"-turn{turn.index}" if turn is not None and view in ("turns", "detail") else ""
        target = getattr(screen, "target", None) if isinstance(screen, DiffScreen) else None
        if target:
            suffix = "-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", target)[:80] or "conversation")
        return f"{stem}-{view}{suffix}.svg"

    def action_screenshot(self) -> None:
        """`s`: a new timestamped file every time, never over an existing one."""
        from traceview.ui.table_export import unique_path

        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        target = unique_path(self.screenshot_dir, self.screenshot_name().removesuffix(".svg"),
                             "svg")
        written = self.save_screenshot(target.name, str(self.screenshot_dir))
        self.notify(f"screenshot written to {written}", title="screenshot", markup=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action as "group: action", offered only where it applies."""
        for command in super().get_system_commands(screen):
            # Textual's own entry writes an unnamed SVG to the working directory.
            if "screenshot" not in command.title.lower():
                yield command
        yield SystemCommand("view: conversations", "Pick a conversation", self.action_conversations)
        yield SystemCommand("view: problems", "Problems found while loading", self.action_problems)
        yield SystemCommand("view: help", "Keys and legends", self.action_help)
        yield SystemCommand("view: carried-context ledger",
                            "What context that arrived without a request costs, turn by turn",
                            self.action_ledger)
        yield SystemCommand("view: provider objects",
                            "Conversations, stored responses, files, vector stores; retention",
                            self.action_objects)
        yield SystemCommand("app: screenshot", "Save an SVG of this screen", self.action_screenshot)
        if not isinstance(screen, DiffScreen | DiffBodiesScreen):
            yield SystemCommand("diff: provider copy vs capture",
                                "Fetch the provider copy of this conversation and diff it",
                                self.action_diff)
        if isinstance(screen, DiffScreen):
            yield SystemCommand("diff: next difference", "Jump to the next row that differs",
                                lambda: screen.action_next_difference(1))
            yield SystemCommand("diff: previous difference", "Jump to the previous difference",
                                lambda: screen.action_next_difference(-1))
            yield SystemCommand("diff: show both bodies", "Capture and provider item side by side",
                                screen.action_open_bodies)
            yield SystemCommand("diff: save snapshot", "Write the provider copy to a file",
                                screen.action_save_snapshot)
            yield SystemCommand("diff: fetch again", "Fetch the provider copy again",
                                screen.action_refetch)
            yield SystemCommand("diff: back", "Back (cancels a running fetch)", screen.action_back)
        if isinstance(screen, MainScreen):
            yield SystemCommand("turns: open detail", "Detail of the selected turn",
                                self.action_detail)
            yield SystemCommand("turns: raw bodies", "Detail with raw JSON bodies",
                                lambda: self.action_detail(raw=True))
            yield SystemCommand("turns: next marked turn", "Jump to the next turn with a marker",
                                lambda: screen.action_next_marked(1))
            yield SystemCommand("turns: previous marked turn", "Jump to the previous marked turn",
                                lambda: screen.action_next_marked(-1))
            yield SystemCommand("turns: filter", "Filter turns by text or marker",
                                screen.action_filter)
            yield SystemCommand("turns: go to turn N", "Jump to a turn by its number (:)",
                                screen.action_goto)
            yield SystemCommand("turns: sort by next column", "Cycle the sort column (S)",
                                screen.action_sort)
            yield SystemCommand("turns: copy selected id", "Copy the turn's response id (y)",
                                screen.action_copy)
            for fmt_name in ("csv", "json", "markdown"):
                yield SystemCommand(f"export: visible table as {fmt_name}",
                                    "Write the filtered rows and shown columns to a file",
                                    lambda f=fmt_name: screen.export_table(f))
            table = screen.table
            for column in table.columns[1:]:
                hidden = column.title in table.hidden
                yield SystemCommand(
                    f"columns: {'show' if hidden else 'hide'} {column.title}",
                    "Show or hide this column of the turns table",
                    lambda t=column.title: screen.toggle_column(t))
        if isinstance(screen, DetailScreen):
            yield SystemCommand("detail: next turn", "The next turn's detail (])",
                                lambda: self.run_action("step(1)", screen))
            yield SystemCommand("detail: previous turn", "The previous turn's detail ([)",
                                lambda: self.run_action("step(-1)", screen))
            yield SystemCommand("detail: toggle raw bodies", "Tree or raw JSON",
                                screen.action_toggle_raw)
            yield SystemCommand("detail: search bodies", "Find text in the bodies",
                                screen.action_search)
            yield SystemCommand("detail: back", "Back to the turns", screen.action_back)

    async def go_to(self, view: str, turn_index: int | None = None) -> bool:
        """Open ``view`` (one of VIEWS) at turn ``turn_index``; False if that turn is unknown."""
        ok = True
        if turn_index is not None:
            turn = self.state.by_index.get(turn_index)
            if turn is None:
                ok = False
            else:
                from traceview.ui.state import conversation_key

                self.main.show_conversation(conversation_key(turn), turn_index)
        if view == "detail":
            self.action_detail()
        elif view == "conversations":
            self.action_conversations()
        elif view == "problems":
            self.action_problems()
        elif view == "help":
            self.action_help()
        elif view == "diff":
            self.action_diff()
        elif view == "ledger":
            self.action_ledger()
        elif view == "objects":
            self.action_objects()
        return ok


#: How much lower the load thread's priority is than the event loop's, once the first rows
#: are shown ($TRACEVIEW_LOAD_NICE; 0 turns it off). On 2 busy cores this halved the key
#: latency's p95 and the event-loop stalls over 50 ms, at no cost to the full load's time
#: (bench/ui_latency.py, 200 MB hosted shape).
LOAD_NICE = 5


def load_nice() -> int:
    env = os.environ.get("TRACEVIEW_LOAD_NICE", "").strip()
    return int(env) if env.isdigit() else LOAD_NICE


def _lower_priority(steps: int) -> None:
    """Make this thread (and the worker processes it starts after) yield the CPU to the
    event loop: on Linux each thread has its own nice value, and children inherit it.
    Elsewhere, or where it is refused, nothing changes."""
    # Only Linux gives each thread its own nice value; elsewhere a thread id is no pid.
    if steps <= 0 or not sys.platform.startswith("linux"):
        return
    import threading

    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + steps))
    except OSError:
        pass


def _problem_key(problem: Any) -> tuple[Any, ...]:
    return tuple(getattr(problem, name, None) for name in ("source", "line", "kind", "message"))


def make_app(
    paths: list[str],
    options: Any = None,
    *,
    screenshot_dir: str | os.PathLike[str] | None = None,
    session_factory: SessionFactory | None = None,
    follow: bool = False,
    theme: str | None = None,
) -> InspectorApp:
    """The inspector on ``paths``; nothing is read until the app runs."""
    return InspectorApp(
        paths, options, screenshot_dir=screenshot_dir, session_factory=session_factory,
        follow=follow, theme=theme,
    )


def _spool_stdin(paths: list[str]) -> tuple[list[str], str | None]:
    """Save a piped capture ("-") to a temp file and give the keyboard back to the app.

    Textual reads keys from standard input; a capture piped into it would be read as
    keystrokes. Like ``less``, read the pipe first, then reattach fd 0 to the terminal.
    """
    if "-" not in paths:
        return paths, None
    fd, temp = tempfile.mkstemp(prefix="traceview-stdin-", suffix=".jsonl")
    with os.fdopen(fd, "wb") as out:
        while chunk := sys.stdin.buffer.read(1 << 20):
            out.write(chunk)
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        os.unlink(temp)
        raise
    os.dup2(tty, 0)
    os.close(tty)
    return [temp if p == "-" else p for p in paths], temp


def _has_terminal(paths: list[str]) -> bool:
    """The inspector draws on stdout and reads keys from stdin (or /dev/tty after "-")."""
    if not os.isatty(1):
        return False
    if "-" in paths or os.isatty(0):
        return True
    return False


def run_inspector(
    paths: list[str],
    options: Any = None,
    screenshot_dir: str | os.PathLike[str] | None = None,
    items: str | None = None,
    follow: bool = False,
    theme: str | None = None,
) -> int:
    """Run the inspector in this terminal; the exit code for the CLI.

    ``items`` (a provider-copy snapshot, or a capture with a recorded listing): `d` diffs
    against it offline instead of fetching the provider copy.
    """
    missing = [p for p in paths if p != "-" and not os.path.exists(p)]
    if missing:
        print(f"traceview: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    if not paths:
        print("traceview: give a capture file, a directory or - for stdin", file=sys.stderr)
        return 2
    from traceview.capture.sources import SourceError, expand_paths
    from traceview.ui.keymap import KeymapError, load_keymap

    try:
        expand_paths([p for p in paths if p != "-"])
    except SourceError as exc:  # an empty directory: one line, before any screen
        print(f"traceview: {exc}", file=sys.stderr)
        return 2

    try:
        keymap = load_keymap()
    except KeymapError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return 2
    if not _has_terminal(paths):
        print("traceview: the inspector needs a terminal (stdout and stdin are not one); "
              "try `traceview report CAPTURE` or `traceview screenshot`", file=sys.stderr)
        return 2
    try:
        paths, temp = _spool_stdin(paths)
    except OSError as exc:
        print(f"traceview: no terminal to read keys from after stdin: {exc}", file=sys.stderr)
        return 2
    try:
        from traceview.ui.settings import load_settings

        app = make_app(paths, options, screenshot_dir=screenshot_dir, follow=follow,
                       theme=theme or load_settings().get("theme"))
        app.remember_theme = True
        app.items_path = items
        app.keymap = keymap
        if temp:
            app.source_aliases = {temp: "<stdin>"}
        result = app.run()
    finally:
        if temp:
            os.unlink(temp)
    return int(result or 0) if app.return_code is None else app.return_code
