"""The arena's players and their captions: Zhang's four human groups of each held-out cartoon, and every published
run's `caption_generation` predictions. A caption's id hashes its player, cartoon and displayed text, so the same
caption keeps its id across restarts and a caption of a removed run is recognised as retired."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..groups import HUMAN_GROUPS, LABELS
from .errors import ArenaRefused
from .text import display_text

log = logging.getLogger("nycc_bench.arena")
ANCHOR = "human:human_200"  # rated 1000: the scale means the same thing across releases
GOLD_REAL, GOLD_DECOY = "gold:real", "gold:decoy"


@dataclass(frozen=True)
class Caption:
    """One caption a battle can show."""

    id: str
    contest: int
    player: str
    text: str  # displayed form (`display_text`)


@dataclass(frozen=True)
class Player:
    """A player: a human group or a published run; gold probes are players that are never rated."""

    id: str
    name: str
    kind: str  # "human" | "model" | "gold"


@dataclass
class Cartoon:
    """What the arena shows of a cartoon besides captions (the image is read when shown, by the caller)."""

    contest: int
    description: str = ""
    has_image: bool = False

    @property
    def judgeable(self) -> bool:
        """Whether a visitor can judge captions of it: its image or its description can be shown."""
        return self.has_image or bool(self.description.strip())


def caption_id(player: str, contest: int, text: str) -> str:
    """A stable id: the player, the cartoon and the displayed text, hashed."""
    return hashlib.sha256(f"{player}\x1f{contest}\x1f{text}".encode()).hexdigest()[:16]


def human_player(group: str) -> Player:
    """One of Zhang's human groups as a player."""
    label = LABELS[group]
    return Player(f"human:{group}", f"Human {label[0].lower() + label[1:]}", "human")


def player_name(player: str) -> str:
    """A player's one name, the same in the tab, the CLI, the export's readers and judge reports: a human group's
    label, a run's id (`run:<id>` -> `<id>`), a gold probe's description."""
    if player.startswith("human:") and player[6:] in LABELS:
        return human_player(player[6:]).name
    if player in GOLD_PLAYERS:
        return GOLD_PLAYERS[player].name
    return player.removeprefix("run:")


GOLD_PLAYERS = {GOLD_REAL: Player(GOLD_REAL, "Gold probe: the cartoon's real caption", "gold"),
                GOLD_DECOY: Player(GOLD_DECOY, "Gold probe: a caption written for another cartoon", "gold")}


@dataclass
class Pool:
    """Every caption by cartoon and player, plus the gold probes' real captions."""

    cartoons: dict[int, Cartoon] = field(default_factory=dict)
    players: dict[str, Player] = field(default_factory=dict)
    captions: dict[str, Caption] = field(default_factory=dict)
    by_contest: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # contest -> player -> caption ids
    real: dict[int, list[str]] = field(default_factory=dict)  # contest -> gold real caption ids

    def add(self, player: Player, contest: int, texts: Iterable[Any]) -> None:
        """Add a player's captions for one cartoon (empty or repeated texts are skipped)."""
        if contest not in self.cartoons:
            raise ArenaRefused(f"contest: {contest} is not a cartoon of the arena; add the cartoon first")
        self.players.setdefault(player.id, player)
        ids = self.by_contest.setdefault(contest, {}).setdefault(player.id, [])
        for raw in texts:
            text = display_text(raw) if isinstance(raw, str) else ""
            if not text:
                continue
            cid = caption_id(player.id, contest, text)
            if cid not in self.captions:
                self.captions[cid] = Caption(cid, contest, player.id, text)
                ids.append(cid)

    def add_gold(self, contest: int, texts: Iterable[str]) -> None:
        """The cartoon's real captions, for gold probes (decoys are real captions of other cartoons)."""
        for raw in texts:
            text = display_text(raw)
            if text:
                cid = caption_id(GOLD_REAL, contest, text)
                self.captions[cid] = Caption(cid, contest, GOLD_REAL, text)
                self.real.setdefault(contest, []).append(cid)
        self.players.update(GOLD_PLAYERS)

    def rated_players(self) -> list[str]:
        """Players that battles pair (gold probes excluded), sorted."""
        return sorted(p for p, player in self.players.items() if player.kind != "gold")

    def name(self, player: str) -> str:
        """A player's display name (a retired one keeps its id)."""
        return self.players[player].name if player in self.players else player


def generation_tasks() -> dict[str, str]:
    """The tasks whose predictions are captions for a cartoon that has the human caption groups (their task files
    show them as `display.view: groups`), each with its dataset config: where the arena's players come from."""
    from ..tasks import all_tasks

    return {name: task.config for name, task in all_tasks().items() if task.display.view == "groups"}


def build_pool(rows: Iterable[Mapping[str, Any]], results: Iterable[Mapping[str, Any]],
               resolve: Callable[[str], Path], with_image: set[int] | None = None) -> Pool:
    """The pool of the cartoons in `rows` (a generation task's split, with its human groups) and the runs in
    `results` (records whose generation task lists predictions files, read through `resolve`; a run's first such
    task in the registry's order). `with_image`: the contests whose image can be shown (battles are served only of
    a cartoon with an image or a description)."""
    tasks = list(generation_tasks())
    pool = Pool()
    for row in rows:
        contest = int(row["contest_number"])
        description = row.get("image_description") or row.get("description") or ""
        pool.cartoons[contest] = Cartoon(contest, str(description), contest in (with_image or ()))
        for group in HUMAN_GROUPS:
            pool.add(human_player(group), contest, row.get(group) or [])
        pool.add_gold(contest, (row.get("human_top10") or [])[:3])
    for record in results:
        task = next((record["tasks"][t] for t in tasks if t in (record.get("tasks") or {})), None)
        run_id = (record.get("extra") or {}).get("run_id")
        if not task or not run_id or ((record.get("extra") or {}).get("published") or {}).get("kind") == "human":
            continue  # a published human group (`import published`) is already a human player
        player = Player(f"run:{run_id}", player_name(f"run:{run_id}"), "model")
        for relative in task.get("predictions") or []:
            try:
                lines = resolve(relative).read_text(encoding="utf-8").splitlines()
            except (OSError, ValueError) as err:
                log.warning("arena: predictions %s of %s left out: %s", relative, run_id, err)
                continue
            for line in lines:
                item = json.loads(line) if line.strip() else {}
                contest = int(item["instance_id"]) if str(item.get("instance_id", "")).isdigit() else None
                if contest in pool.cartoons and item.get("status") == "ok" and isinstance(item.get("prediction"),
                                                                                          list):
                    pool.add(player, contest, item["prediction"])
    return pool
