"""Zhang's API generation prompt as `generation/caption_gen.py` sent it (task option `prompt=caption_gen`)."""

from __future__ import annotations

import pytest

from nycc_bench.builders import build_dataset
from nycc_bench.kinds.instances import build_instances, load_split
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.tasks import get_task

# caption_gen.py L44, as the script spells it (three double spaces and one triple space included)
UPSTREAM_SYSTEM = (
    "I want you to act as a sophisticated reader of The New Yorker Magazine. You are competing in The New Yorker "
    "Cartoon Caption Contest.  Your task is to generate funny captions for a cartoon. Here are some ideas for "
    "developing funny captions.   First think about characteristics associated with the objects and people "
    "featured in the cartoon. Then consider what are the unusual or absurd elements in the cartoon. It might help "
    "to imagine conversations between the characters.  Then think about funny and non-obvious connections that can "
    "be made between the objects and characters. Try to come up with funny captions that fit the cartoon, but are "
    "not too direct.  It may be funnier if the person reading the caption has to think a little bit to get the "
    "joke. Next, I will describe a cartoon image and then you should generate 10 funny captions for the cartoon "
    "along with an explanation for each.")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample's caption_generation config."""
    out = tmp_path_factory.mktemp("gen")
    build_dataset(SAMPLE_DIR, out, ["caption_generation"], progress=False)
    return str(out)


def test_caption_gen_prompt_is_upstreams_literal_text(dataset: str) -> None:
    """System and user turns equal caption_gen.py's string concatenation over Hessel's annotations."""
    task = get_task("caption_generation")
    rows = {str(r["contest_number"]): r for r in load_split(dataset, "caption_generation", "test+validation")}
    instances = build_instances(task, dataset, options={"prompt": "caption_gen"})
    assert instances
    for inst in instances:
        row = rows[inst.instance_id]
        c, u, loc = row["image_description"], row["image_uncanny_description"], row["image_location"]
        e = ""
        for i in row["entities"]:  # L37-39 (with each contest's own entities)
            e += i.split("/")[-1] + ", "
        e = e[:-2]
        assert inst.system == UPSTREAM_SYSTEM
        assert inst.user == ("The cartoon's description is: " + c + ".\n The uncanny description is: " + u
                             + ".\n The location of the cartoon is:" + loc + ".\n The entities of the cartoon are: "
                             + e + ".")
        assert inst.reference["description_source"] == "hessel"
    paper = build_instances(task, dataset)
    assert paper[0].system != UPSTREAM_SYSTEM  # the default stays the paper's B.3 text
