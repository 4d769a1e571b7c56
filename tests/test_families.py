"""Families in one file (tasks/families.yaml) read by every consumer, and Browse rendering any task from its
task file's `display:` block."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nycc_bench import citations
from nycc_bench.errors import NyccBenchError
from nycc_bench.leaderboard import about
from nycc_bench.leaderboard.browse import Contest, _instance_ids, contest_html
from nycc_bench.tasks import GROUPS, all_tasks, list_tasks, resolve_tasks
from nycc_bench.tasks.definition import build_task
from nycc_bench.tasks.display import read_display
from nycc_bench.tasks.families import FILE, families, read_families
from nycc_bench.tasks.registry import ROOT, _raw_files, _resolved
from nycc_bench.tasks.scores import family_list, family_summary


def test_every_task_family_is_in_the_file_and_every_family_has_tasks() -> None:
    assert {t.family for t in all_tasks().values()} == set(families())
    assert [f.key for f in family_list()] == list(families()) == sorted(families(), key=lambda k: families()[k].order)
    assert families() == citations.FAMILIES
    assert (citations.HESSEL2023.key, citations.ZHANG2024.key, citations.HUMORBENCH.key) == tuple(families())


def test_cli_groups_come_from_the_file() -> None:
    assert {"all": None, **{f.group: f.key for f in families().values()}} == GROUPS
    for family in families().values():
        assert resolve_tasks(family.group) == list_tasks(family.key) != []


def test_summaries_list_their_tasks_from_the_registry() -> None:
    measured = about.measured_markdown()
    for family in families().values():
        shown = family_summary(family)
        assert shown.startswith(family.summary)
        assert all(f"`{name}`" in shown for name in list_tasks(family.key)), shown
        assert f"**{family.title}**: {family.measures}" in measured
        assert family.bibtex in about.citations_markdown()


def _write(tmp_path: Path, change: dict) -> Path:
    raw = yaml.safe_load(FILE.read_text(encoding="utf-8"))
    first = next(iter(raw))
    raw[first] = {k: v for k, v in {**raw[first], **change}.items() if v is not None}
    path = tmp_path / "families.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(("change", "message"), [
    ({"licence": "mit"}, "unknown key 'licence'"),
    ({"bibtex": None}, "lacks bibtex"),
    ({"order": "first"}, "order must be a whole number"),
    ({"title": ""}, "title must be a non-empty string"),
    ({"group": "zhang"}, "share a group name"),
    ({"group": "all"}, "share a group name"),
])
def test_a_wrong_families_file_is_one_line_naming_the_key(tmp_path: Path, change: dict, message: str) -> None:
    with pytest.raises(NyccBenchError, match=message) as err:
        read_families(_write(tmp_path, change))
    assert "\n" not in str(err.value)


def test_a_task_of_an_unknown_family_is_refused() -> None:
    raw = {**_resolved("matching", _raw_files())[0], "family": "hessel2032"}
    with pytest.raises(NyccBenchError, match="family 'hessel2032' is not one of hessel2023"):
        build_task(raw, ROOT, "hessel2023/matching.yaml")


@pytest.mark.parametrize(("display", "message"), [
    ({"view": "table"}, "display.view must be one of"),
    ({"view": "text"}, "needs display.fields"),
    ({"view": "elements", "flag": {"config": "x"}}, "display.flag needs config, key and tag"),
    ({"view": "choices", "id": 3}, "display.id must be a row field name"),
])
def test_a_wrong_display_block_is_one_line(display: dict, message: str) -> None:
    with pytest.raises(NyccBenchError, match=message):
        read_display(display, "task file x.yaml")


def test_an_unknown_display_key_gets_the_nearest_one() -> None:
    raw = {**_resolved("matching", _raw_files())[0], "display": {"veiw": "choices"}}
    with pytest.raises(NyccBenchError, match=r"unknown key 'display\.veiw'; did you mean 'view'"):
        build_task(raw, ROOT, "hessel2023/matching.yaml")


def _contest() -> Contest:
    c = Contest(7, description="A cat <in> a bank.", uncanny="The cat is the teller.")
    c.groups = {"human_top10": ["Top & one"], "human_200": [], "human_1000": ["k"], "human_median": ["m"]}
    c.items["matching"].append({"instance_id": "abcdef0123", "caption_choices": list("vwxyz"), "label": "C"})
    c.items["ranking"].append({"instance_id": "rank000001", "caption_choices": ["p", "q"], "label": "A"})
    c.items["explanation"].append({"instance_id": "expl000001", "caption_choices": "A caption", "label": "Why <b>"})
    c.items["humorbench"] += [
        {"caption_id": 11, "caption": "Hi", "elements": ["e1", "e2"], "element_categories": [["pun"], []]},
        {"caption_id": 12, "caption": "Yo", "elements": ["e3"], "element_categories": [[]]}]
    c.items["humorbench_hard"].append({"caption_id": 12})
    c.items["caption_generation"].append({"contest_number": 7})
    return c


# What Browse showed for this contest when it branched on task names (before the `display:` blocks).
BEFORE = """<h3>Contest #7</h3>
<p><b>Description.</b> A cat &lt;in&gt; a bank.</p>
<p><b>What is unusual.</b> The cat is the teller.</p>
<h4>Human caption groups (Zhang et al. 2024)</h4><div class='nycc-groups'>
<div><b>Top 10</b><ol><li>Top &amp; one</li></ol></div>
<div><b>#200-209</b><ol><li><i>none</i></li></ol></div>
<div><b>#1000-1009</b><ol><li>k</li></ol></div>
<div><b>Median</b><ol><li>m</li></ol></div>
</div>
<h4>Hessel et al. 2023 matching (from description): 5-way, which caption was written for this cartoon <small>item abcdef01</small></h4>
<ul class='nycc-choices'><li><b>A</b>. v</li><li><b>B</b>. w</li><li><b>C</b>. x <b>(answer)</b></li><li><b>D</b>. y</li><li><b>E</b>. z</li></ul>
<h4>Hessel et al. 2023 quality ranking (from description): 2-way, which caption is the finalist <small>item rank0000</small></h4>
<ul class='nycc-choices'><li><b>A</b>. p <b>(answer)</b></li><li><b>B</b>. q</li></ul>
<h4>Hessel et al. 2023 explanation (from description): explain why the caption is funny <small>item expl0000</small></h4>
<p><b>Caption.</b> A caption</p><p><b>Human explanation.</b> Why &lt;b&gt;</p>
<h4>HumorBench caption 11</h4><p>Hi</p><p>Elements an explanation must contain:</p><ul><li>e1 <i>(pun)</i></li><li>e2</li></ul>
<h4>HumorBench caption 12 <span class='nycc-tag'>hard</span></h4><p>Yo</p><p>Elements an explanation must contain:</p><ul><li>e3</li></ul>"""  # noqa: E501


def test_browse_renders_todays_tasks_as_it_did_when_it_named_them() -> None:
    assert contest_html(_contest()) == BEFORE


def test_browse_answers_come_from_each_tasks_config_and_id_field() -> None:
    ids = _instance_ids(_contest())
    assert ids["matching"] == ids["matching_5shot"] == [("abcdef0123", "C")]  # a variant reads its base's rows
    assert ids["explanation"] == [("expl000001", None)]  # generation: no answer key
    assert ids["humorbench"] == [("11", None), ("12", None)]
    assert ids["caption_generation"] == [("7", None)]  # one answer per contest
    assert ids["matching_from_pixels"] == []
