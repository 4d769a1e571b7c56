"""The leaderboard's Arena tab: a cartoon and two captions by anonymous players, four vote buttons and two
offensive flags, the players revealed after the vote, and the ratings table and plot. Battles and votes go through
`nycc_bench.arena.Arena` (signed single-use tokens, minimum time, daily cap, gold probes); votes live in
`<store>/arena/arena.sqlite`, mirrored to the results repo on a Space. Everything shown is escaped."""

from __future__ import annotations

import html
import logging
import threading
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from ..arena import Arena, ArenaRefused, ArenaSettings, Ratings, VoteStore, ratings, table_lines, vote_frame
from ..arena.mirror import VoteMirror
from ..arena.rating import MIN_VOTES, PRIOR_TEXT, vote_kinds
from ..arena.rules import ANONYMOUS
from ..arena.seed import dataset_pool, load_seed
from ..arena.service import ANONYMOUS_PREFIX
from ..paths import SEED_DIR

log = logging.getLogger("nycc_bench.leaderboard")
e = html.escape
INTRO = ("**Caption Arena.** Which caption is funnier for this cartoon? Two captions, written for it by two anonymous "
         "players (a model, or one of Zhang et al.'s human groups of contest entries); the players are named after "
         "you vote. Votes count when you are signed in with Hugging Face (anonymous votes are recorded, and count "
         "only if the operator allows it); a few battles, from your first ones on, are checks with a known answer, "
         "and your votes count once you have answered enough of them well. The ratings are Bradley-Terry with a "
         f"weak prior ({PRIOR_TEXT}) and 95% bootstrap intervals of each player's distance from Human #200-209 "
         f"(= 1000), ranked by interval; a player with fewer than {MIN_VOTES} counted votes is provisional and "
         "shows no rating.")
TABLE_ROUNDS, LC_ROUNDS = 1000, 200  # the length-controlled fit is costlier; `arena ratings` runs 1000 of each


def visitor_of(request: gr.Request | None, profile: Any) -> tuple[str, str | None]:
    """Who votes, and from which client address: the signed-in Hugging Face account (`user:<name>`), else the
    client address itself (`address:<host>`, anonymous). The address is the connection's, or the one forwarded by
    a proxy the operator trusts (`NYCC_LB_TRUSTED_PROXIES`, applied by the server before this sees it): never the
    session hash or a header the client chooses."""
    client = getattr(request, "client", None)
    address = getattr(client, "host", None) or None
    name = getattr(profile, "username", None)
    if name:
        return f"user:{name}", address
    if not address:
        raise ArenaRefused("visitor: no client address; reload the page")
    return f"{ANONYMOUS_PREFIX}{address}", address


class ArenaTab:
    """The arena behind the tab: its store, pool (rebuilt when the results change), ratings cache and mirror."""

    def __init__(self, app: Any, settings: ArenaSettings | None = None, seed_dir: Path | None = SEED_DIR) -> None:
        self.app, self.settings = app, settings or ArenaSettings.from_env()
        self.arena: Arena | None = None
        self.error: str | None = None
        self.mirror: VoteMirror | None = None
        self._results_key: tuple[int, ...] | None = None
        self._table: tuple[tuple[int, int], tuple[str, Ratings | None, Ratings | None]] | None = None
        self._lock = threading.Lock()
        if app.store is None:
            self.error = app.store_error or "the store is unavailable"
            return
        try:
            store = VoteStore(Path(app.store.root) / "arena")
            if getattr(app.settings, "published", None):  # a board on the published runs: no simulated sample votes
                seed_dir = None
            if seed_dir is not None and (n := load_seed(store, seed_dir)):
                log.info("arena: seeded %d simulated votes", n)
            if hasattr(app.store, "results_repo") and hasattr(app.store, "api"):  # a Hub store: votes go there too
                self.mirror = VoteMirror(store, app.store.api, app.store.results_repo, self.settings.mirror_s)
                self.mirror.restore(Path(app.store.root))
            self.arena = Arena(store, self._pool(), self.settings)
            if self.mirror is not None:
                self.arena.on_vote.append(self.mirror.schedule)
        except Exception as err:  # the other tabs keep working; this one says why it cannot
            log.exception("arena")
            self.error = f"{type(err).__name__}: {err}"

    def _pool(self) -> Any:
        results = self.app.results()[0]
        self._results_key = tuple(id(r) for r in results)
        return dataset_pool(self.app.settings.dataset, results, self.app.store.resolve)

    def _fresh(self) -> Arena:
        """The arena, its pool rebuilt when a run was published or removed."""
        if self.arena is None:
            raise ArenaRefused(f"arena: unavailable ({self.error})")
        results = self.app.results()[0]
        if tuple(id(r) for r in results) != self._results_key:
            self.arena.set_pool(self._pool())
        return self.arena

    # -- battles and votes --------------------------------------------------------------------------------------
    def serve(self, request: gr.Request | None = None, profile: gr.OAuthProfile | None = None) -> list[Any]:
        """A new battle: token, image, description, both captions; the reveal cleared."""
        try:
            arena = self._fresh()
            served = arena.next_battle(visitor_of(request, profile)[0])
        except ArenaRefused as err:
            return [None, gr.Image(value=None, visible=False), "", "", "", error_html(str(err))]
        image = self.image(served.battle.contest)
        description = (f"<p><b>Cartoon #{served.battle.contest}.</b> {e(served.cartoon.description)}</p>"
                       if served.cartoon.description else f"<p><b>Cartoon #{served.battle.contest}</b></p>")
        return [served.token, gr.Image(value=image, visible=image is not None), description,
                caption_html(served.left), caption_html(served.right), ""]

    def image(self, contest: int) -> Any:
        try:
            return self.app.contests.contest(contest).image
        except Exception:  # a cartoon without an image shows its description only
            log.exception("arena image")
            return None

    def vote(self, choice: str, token: str | None, flag_left: bool, flag_right: bool,
             request: gr.Request | None = None, profile: gr.OAuthProfile | None = None) -> str:
        """Record the vote and reveal the players, or say why the vote does not count."""
        try:
            arena = self._fresh()
            visitor, address = visitor_of(request, profile)
            receipt = arena.vote(token, choice, visitor, bool(flag_left), bool(flag_right), address=address)
        except ArenaRefused as err:
            return error_html(str(err))
        uncounted = ("" if receipt.vote.voter_kind != ANONYMOUS or self.settings.count_anonymous else
                     " It is recorded but not counted: sign in with Hugging Face for your votes to count.")
        picked = {"left": "the left caption", "right": "the right caption", "tie": "a tie",
                  "both_bad": "both bad"}[choice]
        gold = (f" Checks passed: {receipt.gold_passed} of {receipt.gold_answered}."
                if receipt.vote.gold else "")
        return (f"<div class='nycc-banner nycc-ok' id='arena-receipt'>Vote <code>{e(receipt.vote.vote_id)}</code> "
                f"recorded: {picked}. Left: <b>{e(receipt.left_player)}</b>. Right: <b>{e(receipt.right_player)}</b>."
                f"{gold}{uncounted} Press <i>Next battle</i> for another.</div>")

    # -- ratings ------------------------------------------------------------------------------------------------
    def standings(self) -> tuple[str, Ratings | None, Ratings | None]:
        """(label, ratings, length-controlled ratings) of the live votes, or of the simulated seed while no
        person has voted; recomputed when the number of votes changes."""
        if self.arena is None:
            return "", None, None
        store = self.arena.store
        key = (store.count(), store.count(simulated=True))
        with self._lock:
            if self._table is not None and self._table[0] == key:
                return self._table[1]
            votes = store.votes()
            frame = vote_frame(votes, self.settings)
            kinds = vote_kinds(frame) if len(frame) else {"people": 0, "counted_people": 0}
            live = kinds["counted_people"]
            if not live:
                frame = vote_frame(votes, self.settings, include_simulated=True)
            label = (f"{live} counted vote(s) by people ({kinds['people']} recorded; votes count from signed-in "
                     "visitors who answered enough checks well)." if live else
                     f"**Simulated**: these {key[1]} votes were cast by simulated voters with known caption "
                     f"strengths (the seed of a fresh leaderboard), not by people ({kinds['people']} vote(s) by "
                     "people recorded, none counted yet). The first counted vote by a person replaces them.")
            try:
                plain = ratings(frame, rounds=TABLE_ROUNDS)
                controlled = ratings(frame, rounds=LC_ROUNDS, length_control=True)
            except ArenaRefused as err:
                plain = controlled = None
                label += f" {err}"
            self._table = (key, (label, plain, controlled))
            return self._table[1]

    def table(self) -> tuple[pd.DataFrame, Any, str]:
        """The table (both ratings with intervals and vote counts), the plot and the notes."""
        label, plain, controlled = self.standings()
        if plain is None or controlled is None:
            return pd.DataFrame(columns=["Rank", "Player"]), None, label or (self.error or "")
        frame = plain.frame()
        lc = {r.player: r for r in controlled.rows}
        frame.insert(4, "Length-controlled", ["" if r.provisional else f"{lc[r.player].rating:.0f} "
                                              f"[{lc[r.player].low:.0f}, {lc[r.player].high:.0f}]"
                                              for r in plain.rows])
        notes = [label, f"Counted votes: {plain.n_votes} (intervals: {plain.interval}; {TABLE_ROUNDS} bootstrap "
                        f"rounds, length-controlled {LC_ROUNDS}). Prior: {plain.prior}. Fewer than "
                        f"{plain.min_votes} counted votes: provisional, no rating. Ranks compare intervals relative to "
                        "the field (the anchor ranks like any player). Length coefficient (style control): "
                        f"{controlled.length_coef:+.2f} log-odds per unit of normalised length difference "
                        f"[{controlled.length_low:+.2f}, {controlled.length_high:+.2f}]."]
        if plain.left_win_rate is not None:
            notes.append(f"The left caption wins {100 * plain.left_win_rate:.1f}% of {plain.n_decisive} decisive "
                         f"votes [{100 * plain.left_low:.1f}, {100 * plain.left_high:.1f}]; "
                         f"{len(plain.side_biased)} visitor(s) nearly always pick one side.")
        flagged = frame_flags(self.arena) if self.arena is not None else 0
        if flagged:
            notes.append(f"{flagged} vote(s) flagged a caption as offensive (kept in the export's `flag_a`/`flag_b`).")
        notes.extend(plain.notes)
        if self.mirror is not None and self.mirror.skipped:
            notes.append(f"**Operator:** {len(self.mirror.skipped)} malformed vote line(s) in the Hub copy were "
                         f"skipped at start (every good vote was kept), first: {e(self.mirror.skipped[0])}")
        if self.mirror is not None and self.mirror.error:
            notes.append(f"**Not yet on the Hub:** {e(self.mirror.error)}")
        return frame, ratings_plot(plain), "\n\n".join(notes)

    def judges_markdown(self) -> str:
        """The About tab's table of judges measured against people (`nycc-bench judges agree --out` files in the
        store's `arena/judges/`)."""
        import json

        if self.app.store is None:
            return ""
        files = sorted((Path(self.app.store.root) / "arena" / "judges").glob("*.json"))
        reports = []
        for path in files:
            try:
                reports.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError) as err:
                log.warning("arena: judge report %s left out: %s", path.name, err)
        if not reports:
            return ""
        return ("### Judges measured against people\n\nEach judge the operator ran (`nycc-bench judges agree`) beside "
                "the arena's votes and Zhang's crowd check, so a reader knows how far each judged column is from "
                "what people find funny.\n\n" + "\n".join(table_lines(reports)))


def frame_flags(arena: Arena) -> int:
    """Votes that flagged either caption as offensive."""
    return arena.store.read_one("SELECT COUNT(*) FROM votes WHERE flag_a = 1 OR flag_b = 1")


def caption_html(text: str) -> str:
    return (f"<div class='nycc-arena-caption' style='font-size:1.15em; padding:12px; border:1px solid #ccc; "
            f"border-radius:8px; min-height:3em'>{e(text)}</div>")


def error_html(text: str) -> str:
    return f"<div class='nycc-banner nycc-error' id='arena-refused'>{e(text)}</div>"


def ratings_plot(table: Ratings) -> Any:
    """Ratings with their 95% intervals, best on top (provisional players left out: they have no rating)."""
    from matplotlib.figure import Figure

    rows = [r for r in table.rows if not r.provisional][::-1]  # a provisional player has no number to plot
    figure = Figure(figsize=(8, 1.3 + 0.32 * max(len(rows), 1)), dpi=100)
    ax = figure.add_subplot()
    for y, row in enumerate(rows):
        ax.errorbar(row.rating, y, xerr=[[row.rating - row.low], [row.high - row.rating]], fmt="o", capsize=3,
                    color="#1f77b4")
    ax.set_yticks(range(len(rows)), [r.name for r in rows])
    ax.axvline(1000, color="#bbbbbb", linewidth=0.8, zorder=0)
    ax.set_xlabel(f"Arena rating (Human #200-209 = 1000), 95% bootstrap interval ({table.interval})")
    figure.tight_layout()
    return figure


def build_arena_tab(app: Any, demo: gr.Blocks) -> ArenaTab:
    """Lay out the Arena tab inside the current `gr.Tabs` and wire its events (a battle and the table on load)."""
    tab = ArenaTab(app)
    with gr.Tab("Arena", id="arena", elem_id="tab-arena"):
        gr.Markdown(INTRO, elem_id="arena-intro")
        if tab.error:
            gr.HTML(error_html(f"The arena is unavailable: {tab.error}"))
        token = gr.State(None)
        with gr.Row():
            image = gr.Image(label="Cartoon", type="pil", interactive=False, height=300, visible=False, scale=1,
                             elem_id="arena-image")
            description = gr.HTML(elem_id="arena-cartoon")
        with gr.Row(equal_height=True):
            left = gr.HTML(elem_id="arena-left")
            right = gr.HTML(elem_id="arena-right")
        with gr.Row(elem_id="arena-votes"):  # right under the captions (a phone reaches them without scrolling)
            buttons = {choice: gr.Button(label, elem_id=f"arena-vote-{choice.replace('_', '-')}")
                       for choice, label in (("left", "Left is funnier"), ("right", "Right is funnier"),
                                             ("tie", "Tie"), ("both_bad", "Both bad"))}
            next_button = gr.Button("Next battle", variant="primary", elem_id="arena-next")
        with gr.Row():
            flag_left = gr.Checkbox(label="Left caption is offensive", value=False, elem_id="arena-flag-left")
            flag_right = gr.Checkbox(label="Right caption is offensive", value=False, elem_id="arena-flag-right")
        reveal = gr.HTML(elem_id="arena-reveal")
        gr.Markdown("### Ratings")
        notes = gr.Markdown(elem_id="arena-notes")
        table = gr.Dataframe(interactive=False, elem_id="arena-table", show_label=False, wrap=True)
        plot = gr.Plot(label="Arena ratings", format="png", elem_id="arena-plot")

    shown = [token, image, description, left, right, reveal]
    for choice, button in buttons.items():
        event = button.click(_voter(tab, choice), [token, flag_left, flag_right], reveal,
                             api_name=f"arena_vote_{choice}")
        event.then(tab.table, None, [table, plot, notes], show_progress="hidden")
    next_button.click(_next_battle(tab), None, [*shown, flag_left, flag_right], api_name="arena_next")
    demo.load(tab.serve, None, shown)
    demo.load(tab.table, None, [table, plot, notes])
    return tab


def _next_battle(tab: ArenaTab) -> Any:
    """The Next battle handler: the new battle and both offensive flags cleared in one update, so a flag ticked as
    soon as the new captions show is never cleared after it (a second event did that, late on a busy server)."""
    def handler(request: gr.Request, profile: gr.OAuthProfile | None = None) -> list[Any]:
        return [*tab.serve(request, profile), False, False]

    return handler


def _voter(tab: ArenaTab, choice: str) -> Any:
    """The click handler of one vote button (Gradio passes the request and the signed-in profile)."""
    def handler(token: str | None, flag_left: bool, flag_right: bool, request: gr.Request,
                profile: gr.OAuthProfile | None = None) -> str:
        return tab.vote(choice, token, flag_left, flag_right, request, profile)

    return handler
