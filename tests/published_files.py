"""Small files in upstream's formats for the `import published` tests: the sample's original human groups and
HumorBench annotations beside invented model outputs (never upstream's data)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from nycc_bench.contests import ZHANG_HELD_OUT
from nycc_bench.paths import SAMPLE_DIR

ZHANG = SAMPLE_DIR / "zhang_cartoon_caption_generation" / "examples" / "generations"
HUMOR = SAMPLE_DIR / "humorbench_reubennarad"
TOXIC = "analysis/category_subsets/20250710_201058_toxic_or_shocking_subset.csv"
WORDS = ["lamp", "tax", "moon", "soup", "ladder", "parrot", "ticket", "glove", "piano", "sock", "cloud", "bench"]


def captions(contest: int, seed: int) -> list[str]:
    """Ten invented captions for one contest (different words per caption, some repeated across captions)."""
    return [f"The {WORDS[(contest + seed + i) % 12]} was {WORDS[(i * 5 + seed) % 12]} all along, said {i}."
            for i in range(10)]


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    """One CSV file as pandas and upstream write them (header, then rows; quoted where needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_mirror(root: Path) -> Path:
    """A folder in upstream's layouts: Zhang's four human groups (the sample's) and two model files (claude.csv
    as `0..9,contest_num` over every held-out contest; zs.csv as `contest_number,prompt,caption1..10` over three
    held-out contests, one extra contest and one empty caption); HumorBench's sample annotations and labels, a
    verdict file of two models (one covering every element, one a few) and docs/data.json."""
    gen = root / "zhang" / "examples" / "generations"
    gen.mkdir(parents=True)
    for f in ZHANG.glob("human_*.csv"):
        shutil.copyfile(f, gen / f.name)
    _write_csv(gen / "claude.csv", [*map(str, range(10)), "contest_num"],
               [[*captions(c, 1), c] for c in ZHANG_HELD_OUT])
    zs = [[c, "prompt", *captions(c, 2)] for c in ZHANG_HELD_OUT[:3]] + [[889, "prompt", *captions(889, 2)]]
    zs[0][2 + 4] = ""  # an empty cell: pandas reads NaN, upstream scores "nan"
    _write_csv(gen / "zs.csv", ["contest_number", "prompt", *(f"caption{i}" for i in range(1, 11))], zs)
    hb = root / "humor"
    for name in ("comprehensive_annotations.csv", "categorized_output_wordplay.csv",
                 "categorized_output_cultural_reference.csv", "categorized_output_toxic_or_shocking.csv"):
        hb.mkdir(exist_ok=True)
        shutil.copyfile(HUMOR / name, hb / name)
    with open(HUMOR / "comprehensive_annotations.csv", newline="", encoding="utf-8") as f:
        elements = list(csv.DictReader(f))
    rows = []
    for i, e in enumerate(elements):
        for model, keep in (("gpt-4o", True), ("meta-llama/Llama-9-Test", i % 4 == 0)):
            if keep:
                verdict = "FAIL" if (i + len(model)) % 3 == 0 else "PASS"
                rows.append([e["idx"], e["cartoonstock_id"], e["contest_number"], e["description"], e["caption"],
                             e["element"], f"An invented explanation {i} by {model}.", verdict,
                             f"reasoning {i}", model, "{}", "gpt-4o", "{}", "runs/x.csv"])
    _write_csv(hb / TOXIC, ["idx", "cartoonstock_id", "contest_number", "description", "caption", "element",
                            "explanation", "autograder_judgment", "autograder_reasoning", "explainer_model",
                            "explainer_usage", "autograder_model", "autograder_usage", "source_file"], rows)
    (hb / "docs").mkdir()
    (hb / "docs" / "data.json").write_text(json.dumps([
        {"display_name": "GPT-4o", "explainer_model": "gpt-4o", "pass_rate_per_row": 0.75, "num_rows": 499,
         "toxic_or_shocking_pass_rate_per_row": 0.5},
        {"display_name": "Llama 9 Test", "explainer_model": "meta-llama-Llama-9-Test", "pass_rate_per_row": 0.5,
         "num_rows": 499}]), encoding="utf-8")
    return root
