"""Write the embedded sample dataset of nycc-bench (every file below `nycc_bench/sample_data/`).

All text is invented for this project (see `sample_texts.py` and the word lists below); only the
file formats, names and folder layout copy the upstream sources described in SPEC.md §2. The output is
deterministic: fixed seeds, no network, no timestamps. Run from the repository root:

    .venv/bin/python nycc_bench/sample_data/make_sample.py
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
import shutil
import sys
from pathlib import Path

import datasets
import numpy as np
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_texts import (
    DUPLICATE_IDX_CAPTION,
    HESSEL_CARTOONS,
    HUMORBENCH_CAPTIONS,
    HUMORBENCH_CARTOONS,
    HUMORBENCH_HARD,
    RUBRIC_EXPLANATIONS,
    SUMMARY_CARTOONS,
)

ROOT = Path(__file__).resolve().parent
API_DIR = ROOT / "nextml_caption_contest_data_api" / "contests"
NEXTML_DIR = ROOT / "nextml_caption_contest_data" / "summaries"
ZHANG_DIR = ROOT / "zhang_cartoon_caption_generation" / "examples" / "generations"
HESSEL_DIR = ROOT / "newyorker_caption_contest"
HB_DIR = ROOT / "humorbench_reubennarad"
LB_DIR = ROOT / "hessel_leaderboard"

# Zhang et al. 2024 held-out contests in the row order of human_*.csv (zhang SOURCE.md).
ZHANG_ORDER: tuple[int, ...] = (
    543, 544, 548, 553, 568, 575, 576, 578, 579, 590, 600, 603, 604, 615, 617, 621, 632, 633, 634, 640,
    643, 649, 652, 655, 662, 664, 666, 669, 671, 672, 676, 677, 682, 684, 690, 694, 699, 710, 713, 724,
    731, 744, 747, 751, 752, 758, 761, 536, 537, 545, 550, 551, 557, 558, 561, 564, 567, 573, 574, 586,
    598, 607, 609, 610, 611, 613, 616, 629, 636, 637, 646, 661, 663, 681, 685, 695, 696, 697, 700, 701,
    706, 709, 717, 721, 729, 730, 746, 748, 750, 754, 757,
)  # fmt: skip

# Long-tail caption templates: {a} is a word from the contest's own cartoon, {b} a generic word.
TEMPLATES: list[str] = [
    "I asked for {a}, not {b}.", "Frankly, the {a} was the easy part.", "Don't tell the {a} about {b}.",
    "This is what happens when you skip {b}.", "My therapist said to embrace the {a}.",
    "Honestly, I expected more {b}.", "It's {a} season again, apparently.", "I blame {b}.",
    "Nobody warned me about the {a}.", "Is the {a} included, or is that extra?",
    "We said casual, but this is a lot of {a}.", "Relax, the {a} is insured.", "Well, it beats {b}.",
    "I'm only here for the {a}.", "Let's circle back on the {a} after {b}.", "Every family has a {a}.",
    "The {a} was on sale and I panicked.", "You should have seen the {a} before {b}.",
    "Between you and me, the {a} runs this place.", "Okay, who invited {b}?",
    "It's not a {a}, it's a lifestyle.", "I read about the {a} in a magazine about {b}.",
    "My lawyer says the {a} is legally a guest.", "Act natural. Pretend the {a} is {b}.",
    'He said "{a}," and I said "{b}."', "Who ordered the “{a}”?", "The brochure didn't mention the {a}.",
    "This is why we can't have {b}.", "I'm sure the {a} is temporary.", "At least the {a} is punctual.",
    "Mark my words: after the {a} comes {b}.", "Tell me again how the {a} saves us money on {b}.",
    "That's the last time I let the {a} plan {b}.", "It’s fine. It’s all fine. It’s just the {a}.",
    "Nobody panic. The {a} can smell panic.", "Sure, but has the {a} tried {b}?",
    "I came for {b} and stayed for the {a}.", "In my defense, the {a} started it.",
    "Don't look now, but the {a} is listening.", "My horoscope said to expect a {a} and {b}.",
    "I liked it better when it was just {b}.", "The {a} and I are taking a break from {b}.",
    "First the {a}, now {b}. What next?", "Put the {a} on my tab, next to {b}.",
]
GENERIC_B: list[str] = [
    "brunch", "the weekend", "my mother-in-law", "taxes", "a second opinion", "daylight saving time",
    "the group chat", "Mondays", "the landlord", "jazz", "cardio", "the quarterly report", "a podcast",
    "the neighbors", "gluten", "the book club", "a timeshare", "karaoke",
]
GENERIC_A: list[str] = [
    "meeting", "couch", "elevator", "casserole", "parrot", "spreadsheet", "umbrella", "moose", "treadmill",
    "accordion", "submarine", "cupcake", "snowplow", "flamingo", "jury", "hammock", "llama", "printer",
]
SUFFIXES: list[str] = ["", "", "", "", " Again.", " Classic.", " Don't ask.", " Typical."]

# Sorted rows p-1 and p get equal scores at these p (plus the median edges) in every held-out contest.
HELD_OUT_BOUNDARIES = (5, 10, 200, 210, 1000, 1010)


def softmax_rows(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of a 2-D array."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def simulate_votes(x: np.ndarray, rng: np.random.Generator, lo: int, hi: int, adaptive: bool,
                   shift: float = 0.0) -> np.ndarray:
    """Votes [funny, somewhat_funny, unfunny] per caption from latent quality x.

    Adaptive samplers (LilUCB, KLUCB) give better captions more votes; passive ones (RoundRobin)
    spread votes evenly.
    """
    p = softmax_rows(np.stack([0.9 * x - 1.9 + shift, 0.45 * x - 0.9 + shift / 2, np.zeros_like(x)], 1))
    if adaptive:
        n = lo + (hi - lo) / (1 + np.exp(-(1.8 * x - 2.0))) * rng.uniform(0.7, 1.3, len(x))
    else:
        n = rng.integers(lo, hi + 1, len(x))
    return rng.multinomial(np.maximum(np.round(n).astype(np.int64), 3), p)


def score_of(counts: np.ndarray) -> list[float]:
    """Mean rating (3·funny + 2·somewhat + 1·unfunny) / count, computed exactly as upstream."""
    return [(3 * int(f) + 2 * int(s) + int(u)) / int(f + s + u) for f, s, u in counts]


def precision_of(counts: np.ndarray, smoothed: bool = False) -> list[float]:
    """Standard error of the mean rating; zero-variance rows get sqrt(1/(n(n-1))) as upstream does.

    `smoothed` adds one pseudo-vote per rating (a different estimator, as some upstream files use).
    """
    out = []
    for f, s, u in counts.astype(np.int64):
        if smoothed:
            f, s, u = f + 1, s + 1, u + 1
        n = f + s + u
        mean = (3 * f + 2 * s + u) / n
        var = max((9 * f + 4 * s + u - n * mean * mean) / (n - 1), 0.0)
        out.append(math.sqrt(var / n) if var > 1e-12 else math.sqrt(1 / (n * (n - 1))))
    return out


def tail_captions(words: list[str], n: int, rng: np.random.Generator, exclude: set[str]) -> list[str]:
    """n distinct template captions for one cartoon's long tail."""
    out: list[str] = []
    seen = set(exclude)
    while len(out) < n:
        t = TEMPLATES[rng.integers(len(TEMPLATES))]
        text = t.format(a=words[rng.integers(len(words))], b=GENERIC_B[rng.integers(len(GENERIC_B))])
        text = re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)  # "a elevator" -> "an elevator"
        text += SUFFIXES[rng.integers(len(SUFFIXES))]
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def sorted_order(scores: list[float]) -> list[int]:
    """Indices by score descending, ties keeping generation (file) order."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


class Contest:
    """One contest's caption set and the latent quality that drives every rating run over it."""

    def __init__(self, number: int, n: int, seed: int) -> None:
        """Draw n latent qualities (descending) and prepare the caption slots."""
        self.number, self.n = number, n
        self.rng = np.random.default_rng(seed)
        self.x = np.sort(self.rng.normal(0.0, 1.0, n))[::-1]
        self.target_ids = self.rng.permutation(n)
        self.captions: list[str] = [""] * n

    def assign_captions(self, order: list[int], overrides: dict[int, str]) -> None:
        """Put hand-written captions on the best rows of `order`, the long tail below, overrides last."""
        _, words, best = SUMMARY_CARTOONS[self.number]
        tail = tail_captions(words, self.n - len(best), self.rng, set(best) | set(overrides.values()))
        for pos, cid in enumerate(order):
            self.captions[cid] = best[pos] if pos < len(best) else tail[pos - len(best)]
        for pos, text in overrides.items():
            self.captions[order[pos]] = text


def tie_boundaries(counts: np.ndarray, order: list[int], positions: list[int]) -> None:
    """Copy the votes of sorted row p-1 onto row p: an exact score tie across p that keeps the order valid."""
    for p in positions:
        counts[order[p]] = counts[order[p - 1]]


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    """Write like pandas `to_csv(index=False)`: minimal quoting, '\\n' line ends, floats as repr."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def write_run(c: Contest, counts: np.ndarray, path: Path, variant: str, smoothed: bool = False) -> list[int]:
    """Write one rating run sorted by score (ties in file order); return the sorted caption ids."""
    scores, precs = score_of(counts), precision_of(counts, smoothed)
    order = sorted_order(scores)
    rows = []
    for pos, i in enumerate(order):
        f, s, u = (int(v) for v in counts[i])
        rank = 1 + sum(1 for sc in scores if sc > scores[i])
        if variant == "api_old":
            rows.append([rank, f, s, u, f + s + u, scores[i], precs[i], c.number, c.captions[i]])
        elif variant == "api_new":
            rows.append([int(c.target_ids[i]), rank, f, s, u, f + s + u, scores[i], precs[i], c.number,
                         c.captions[i]])
        else:
            row = [c.captions[i], scores[i], precs[i], f + s + u, u, s, f]
            rows.append([pos, *row] if variant == "nx_rank" else row)
    api = ["rank", "funny", "somewhat_funny", "unfunny", "count", "score", "precision", "contest", "caption"]
    nx = ["caption", "mean", "precision", "votes", "not_funny", "somewhat_funny", "funny"]
    header = {"api_old": api, "api_new": ["target_id", *api], "nx": nx, "nx_rank": ["rank", *nx]}[variant]
    write_csv(path, header, rows)
    return order


def held_out(number: int, n: int, seed: int, path: Path, variant: str, lo: int, hi: int,
             overrides: dict[int, str]) -> list[str]:
    """A held-out contest: one run, exact ties across every group boundary; return captions in file order."""
    c = Contest(number, n, seed)
    counts = simulate_votes(c.x, c.rng, lo, hi, adaptive=True)
    order = sorted_order(score_of(counts))
    mid = n // 2
    tie_boundaries(counts, order, [*HELD_OUT_BOUNDARIES, mid - 5, mid + 5])
    c.assign_captions(sorted_order(score_of(counts)), overrides)
    order = write_run(c, counts, path, variant)
    return [c.captions[i] for i in order]


def make_summaries() -> dict[int, list[str]]:
    """All nextml summaries; return the file-ordered captions of the four held-out contests."""
    api = API_DIR / "summaries"
    dup_543, dup_758 = "Relax, the foghorn is insured.", "We will not be swept under the rug. Again."
    groups = {
        543: held_out(543, 1250, 543, api / "543_summary_KLUCB.csv", "api_new", 20, 900,
                      {1003: dup_543, 1006: dup_543, 204: 'She said "read," not "eat." Classic.'}),
        536: held_out(536, 1060, 536, api / "536_summary_LilUCB.csv", "api_old", 8, 400,
                      {528: "I'm told the rust is load-bearing.\n", 702: "Sir, the dryer is not a horse."}),
        701: held_out(701, 1030, 701, NEXTML_DIR / "701.csv", "nx_rank", 40, 6000,
                      {205: "Two pumps of syrup?\nMa'am, I have eight pumps of everything."}),
        758: held_out(758, 1020, 758, NEXTML_DIR / "758_KLUCB.csv", "nx", 30, 5000,
                      {508: dup_758, 512: dup_758}),
    }
    # 510: two sampling runs over one caption set.
    c = Contest(510, 300, 510)
    lil = simulate_votes(c.x, c.rng, 6, 80, adaptive=True)
    rr = simulate_votes(c.x + c.rng.normal(0, 0.4, c.n), c.rng, 8, 13, adaptive=False)
    c.assign_captions(sorted_order(score_of(lil)), {})
    write_run(c, lil, api / "510_summary_LilUCB.csv", "api_old")
    write_run(c, rr, api / "510_summary_RoundRobin.csv", "api_old", smoothed=True)
    # 560: one caption set rated for "funny" and for "original".
    c = Contest(560, 250, 560)
    funny = simulate_votes(c.x, c.rng, 30, 3000, adaptive=True)
    original = simulate_votes(0.5 * c.x + c.rng.normal(0, 0.8, c.n), c.rng, 20, 1500, adaptive=True, shift=0.3)
    c.assign_captions(sorted_order(score_of(funny)), {})
    write_run(c, funny, api / "560_summary_KLUCB_funny.csv", "api_old")
    write_run(c, original, api / "560_summary_KLUCB_original.csv", "api_old")
    # Single-run training contests.
    for number, n, name, variant, lo, hi, adaptive in [
        (508, 40, "508-round2_summary_RoundRobin.csv", "api_new", 300, 370, False),
        (530, 400, "530_summary_LilUCB.csv", "api_old", 10, 300, True),
        (800, 350, "800.csv", "nx", 50, 2000, True),
    ]:
        c = Contest(number, n, number)
        counts = simulate_votes(c.x, c.rng, lo, hi, adaptive)
        c.assign_captions(sorted_order(score_of(counts)), {})
        write_run(c, counts, (NEXTML_DIR if variant == "nx" else api) / name, variant)
    return groups


def make_descriptions() -> None:
    """descriptions.txt: `contest,description`; 508 deliberately has none; one line quoted needlessly."""
    lines = ["contest,description"]
    for number in sorted(SUMMARY_CARTOONS):
        desc = SUMMARY_CARTOONS[number][0]
        if desc is None:
            continue
        needs = any(ch in desc for ch in ',"\n') or number == 800  # upstream quotes some lines needlessly
        lines.append(f"{number},\"{desc.replace(chr(34), chr(34) * 2)}\"" if needs else f"{number},{desc}")
    path = API_DIR / "metadata" / "descriptions.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_zhang(groups: dict[int, list[str]]) -> None:
    """human_{top,200,1000,median}.csv: 91 rows of 10 captions in ZHANG_ORDER (SPEC §3 rule where we can)."""
    slices = {"human_top.csv": lambda n: (0, 10), "human_200.csv": lambda n: (200, 210),
              "human_1000.csv": lambda n: (1000, 1010), "human_median.csv": lambda n: (n // 2 - 5, n // 2 + 5)}
    for name, where in slices.items():
        rows = []
        for contest in ZHANG_ORDER:
            if contest in groups:
                lo, hi = where(len(groups[contest]))
                rows.append(groups[contest][lo:hi])
            else:
                rng = np.random.default_rng([contest, len(name)])
                words = [GENERIC_A[i] for i in rng.choice(len(GENERIC_A), 4, replace=False)]
                rows.append(tail_captions(words, 10, rng, set()))
        write_csv(ZHANG_DIR / name, [str(i) for i in range(10)], rows)


def cartoon_png(contest: int) -> bytes:
    """A small deterministic drawing (96x72) that differs per contest."""
    rng = np.random.default_rng(contest)
    img = Image.new("RGB", (96, 72), tuple(int(v) for v in rng.integers(200, 256, 3)))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 54, 95, 71], fill=tuple(int(v) for v in rng.integers(90, 200, 3)))
    for _ in range(3 + contest % 4):
        x0, y0 = int(rng.integers(0, 70)), int(rng.integers(0, 50))
        box = [x0, y0, x0 + int(rng.integers(8, 26)), y0 + int(rng.integers(8, 22))]
        color = tuple(int(v) for v in rng.integers(0, 160, 3))
        (d.ellipse if rng.random() < 0.5 else d.rectangle)(box, outline=(0, 0, 0), fill=color)
    d.line([(4, 4), (91, 4 + contest % 60)], fill=(0, 0, 0), width=1)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def from_description(cart: dict, tail: str) -> str:
    """Pack the description fields like upstream: scene/description/uncanny/entities, then the choices."""
    return (f"scene: {cart['location']} description: {cart['description']} uncanny: {cart['uncanny']} "
            f"entities: {', '.join(cart['entities'])}. {tail}")


def hessel_instances(task: str, fold: int, split_index: int, idxs: list[int], k: int) -> list[dict]:
    """k instances of one task for the cartoons `idxs`; caption and label positions rotate deterministically."""
    out = []
    for j in range(k):
        cart = HESSEL_CARTOONS[idxs[j % len(idxs)]]
        w = (j + j // len(idxs)) % 3
        caption, source, explanation = cart["winners"][w]
        row = {"image": {"bytes": cartoon_png(cart["contest"]), "path": None},
               "contest_number": cart["contest"], "image_location": cart["location"],
               "image_description": cart["description"], "image_uncanny_description": cart["uncanny"],
               "entities": [f"https://en.wikipedia.org/wiki/{e}" for e in cart["entities"]],
               "questions": cart["questions"]}
        if task == "matching":
            others = [c for c in HESSEL_CARTOONS if c is not cart]
            pick = np.random.default_rng([fold, split_index, j]).choice(len(others), 4, replace=False)
            choices = [others[p]["winners"][(j + p) % 3][0] for p in pick]
            pos = (j + 2 * fold + split_index) % 5
            choices.insert(pos, caption)
            label = "ABCDE"[pos]
            tail = "choices " + " ".join(f"{ch}: {c}" for ch, c in zip("ABCDE", choices, strict=True))
        elif task == "ranking":
            pos = (j + fold + split_index) % 2
            choices = [caption, cart["okay"][w]] if pos == 0 else [cart["okay"][w], caption]
            label = "AB"[pos]
            tail = f"choices A: {choices[0]} B: {choices[1]}"
        else:
            choices, label, tail = caption, explanation, f"caption: {caption}"
        row.update(caption_choices=choices, from_description=from_description(cart, tail))
        if task == "ranking":
            row["winner_source"] = source
        key = f"{task}|{cart['contest']}|{choices}|{label}"
        row.update(label=label, n_tokens_label=1 if task != "explanation" else len(label.split()),
                   instance_id=hashlib.md5(key.encode("utf-8")).hexdigest())
        out.append(row)
    return out


def hessel_features(task: str, pixels: bool) -> datasets.Features:
    """The upstream column order and types of one Hessel config."""
    s = datasets.Value("string")
    choices = s if task == "explanation" else datasets.List(s)
    cols: dict = {"image": datasets.Image(), "contest_number": datasets.Value("int32")}
    if not pixels:
        cols.update(image_location=s, image_description=s, image_uncanny_description=s,
                    entities=datasets.List(s), questions=datasets.List(s))
    cols["caption_choices"] = choices
    if not pixels:
        cols["from_description"] = s
    if task == "ranking":
        cols["winner_source"] = s
    cols.update(label=s, n_tokens_label=datasets.Value("int32"), instance_id=s)
    return datasets.Features(cols)


def make_hessel() -> None:
    """Parquet shards <config>/newyorker_caption_contest-<split>.parquet for folds 0 and 1."""
    groups = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    for fold in (0, 1):
        test, val = groups[fold], groups[fold + 1]
        train = [i for i in range(12) if i not in test + val]
        for task in ("matching", "ranking", "explanation"):
            for pixels in (False, True):
                feats = hessel_features(task, pixels)
                config = task + ("_from_pixels" if pixels else "") + (f"_{fold}" if fold else "")
                for si, (split, idxs, k) in enumerate([("train", train, 8), ("validation", val, 3),
                                                       ("test", test, 4)]):
                    rows = hessel_instances(task, fold, si, idxs, k)
                    data = {name: [r[name] for r in rows] for name in feats}
                    path = HESSEL_DIR / config / f"newyorker_caption_contest-{split}.parquet"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    datasets.Dataset.from_dict(data, features=feats).to_parquet(str(path))


def humorbench_rows() -> list[list]:
    """Annotation rows sorted by idx: [idx, cartoonstock_id, contest_number, description, caption, element,
    flags, caption position]. First elements get low idx, extra elements later ones (as upstream)."""
    first = (i for i in range(1, 999) if i % 4)  # gaps in idx, as upstream has
    later = (i for i in range(31, 999) if i % 5)
    rows = []
    for pos, (cart, caption, elements) in enumerate(HUMORBENCH_CAPTIONS):
        contest, cs_id, desc = HUMORBENCH_CARTOONS[cart]
        number = "" if contest is None else repr(float(contest))
        rows.append([next(first), cs_id, number, desc, caption, *elements[0], pos])
    for pos, (cart, caption, elements) in enumerate(HUMORBENCH_CAPTIONS):
        contest, cs_id, desc = HUMORBENCH_CARTOONS[cart]
        number = "" if contest is None else repr(float(contest))
        shared = next(later) if caption == DUPLICATE_IDX_CAPTION else None
        for element, flags in elements[1:]:
            rows.append([shared or next(later), cs_id, number, desc, caption, element, flags, pos])
    return sorted(rows, key=lambda r: r[0])


def make_humorbench() -> None:
    """comprehensive_annotations.csv, the three category files, the hard subset and one rubric file."""
    rows = humorbench_rows()
    head = ["idx", "cartoonstock_id", "contest_number", "description", "caption", "element"]
    write_csv(HB_DIR / "comprehensive_annotations.csv", head, [r[:6] for r in rows])
    rng = np.random.default_rng(2025)
    for flag, name in zip("wct", ["wordplay", "cultural reference", "toxic or shocking"], strict=True):
        cat = [[r[0], str(flag in r[6]), 160 + len(r[5]) // 4 + int(rng.integers(0, 20)),
                int(rng.choice([19, 83, 147, 211]))] for r in rows]
        write_csv(HB_DIR / f"categorized_output_{name.replace(' ', '_')}.csv",
                  ["idx", name, "prompt_tokens", "completion_tokens"], cat)
    make_paper_categories(rows)
    # The paper's hard list is caption-level: every element of a hard caption, sharing the caption's pass rate
    # over 15 runs (attempts = 15 x elements), sorted by pass rate, in upstream's paper_hard_subset layout.
    hard_captions = {r[4] for r in rows if r[5] in HUMORBENCH_HARD}
    per_caption = {c: [r for r in rows if r[4] == c] for c in hard_captions}
    rate = {c: (sum(HUMORBENCH_HARD.get(r[5], (0, 0))[0] for r in rs), 15 * len(rs)) for c, rs in per_caption.items()}
    hard = sorted(([*r[:6], rate[r[4]][0] / rate[r[4]][1], rate[r[4]][1], *(str(f in r[6]) for f in "wct")]
                   for r in rows if r[4] in hard_captions), key=lambda r: r[6])
    write_csv(HB_DIR / "analysis" / "paper_hard_subset" / "hard_subset_with_categories.csv",
              [*head, "pass_rate", "num_attempts", "is_wordplay", "is_cultural_reference", "is_toxic_or_shocking"],
              hard)
    nycc = [r for r in rows if r[2]][:20]
    rubric = [[r[0], int(float(r[2])), *r[3:6], RUBRIC_EXPLANATIONS[r[7]], "gpt-4o", "openai",
               "FAIL" if "F" in r[6] else "PASS"] for r in nycc]
    write_csv(HB_DIR / "rubric" / "gpt_4o_rubric.csv",
              ["idx", "contest_number", "description", "caption", "element", "explanation",
               "explainer_model", "explainer_family", "label"], rubric)


def make_paper_categories(rows: list[list]) -> None:
    """The paper's element categories (upstream's files at 41cacd4, kept renamed in analysis/paper_categories/):
    the later labels with every third element's wordplay and cultural-reference flags flipped, so the two
    versions differ as upstream's do."""
    for flag, name in zip("wct", ["wordplay", "cultural reference", "toxic or shocking"], strict=True):
        cat = [[r[0], str((flag in r[6]) != (pos % 3 == 0 and flag in "wc")), 150 + len(r[5]) // 4, 2]
               for pos, r in enumerate(rows)]
        write_csv(HB_DIR / "analysis" / "paper_categories" / f"paper_categories_41cacd4_{name.replace(' ', '_')}.csv",
                  ["idx", name, "prompt_tokens", "completion_tokens"], cat)


def make_leaderboard() -> None:
    """Hessel's leaderboard sets as `unzip <task>_test_set_public.zip` lays them out (3 instances each, no labels),
    and raw GPT-4V-style replies for the matching set (upstream's `query_cache` records)."""
    import json

    carts = HESSEL_CARTOONS[:3]
    replies = []
    for task, n_choices in (("matching", 5), ("ranking", 2)):
        folder = LB_DIR / f"{task}_test_set_public"
        folder.mkdir(parents=True, exist_ok=True)
        instances = []
        for k, cart in enumerate(carts):
            image = hashlib.md5(f"leaderboard {task} {cart['contest']}".encode()).hexdigest() + ".jpg"
            buf = io.BytesIO()
            Image.open(io.BytesIO(cartoon_png(cart["contest"]))).save(buf, format="JPEG", quality=85)
            (folder / image).write_bytes(buf.getvalue())
            others = [c["winners"][0][0] for c in HESSEL_CARTOONS if c is not cart][:n_choices - 1]
            choices = [*others[:k % n_choices], cart["winners"][0][0], *others[k % n_choices:]]
            iid = hashlib.md5(f"leaderboard instance {task} {cart['contest']}".encode()).hexdigest()
            instances.append({"choices": dict(zip("ABCDE", choices, strict=False)), "image": image,
                              "instance_id": iid})
            if task == "matching":
                replies.append({"instance_id": iid, "response": f"The scene fits one caption best.\n\n"
                                f"Answer: {'ABCDE'[k % n_choices]}"})
        (folder / "instances.json").write_text(json.dumps(instances, indent=1) + "\n", encoding="utf-8")
    (LB_DIR / "gpt4v_matching_leaderboard_responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in replies), encoding="utf-8")


def main() -> None:
    """Regenerate every sample file from scratch."""
    datasets.disable_progress_bars()
    for sub in (API_DIR.parent, NEXTML_DIR.parent, ZHANG_DIR.parents[1], HESSEL_DIR, HB_DIR, LB_DIR):
        if sub.exists():
            shutil.rmtree(sub)
    groups = make_summaries()
    make_descriptions()
    make_zhang(groups)
    make_hessel()
    make_humorbench()
    make_leaderboard()


if __name__ == "__main__":
    main()
