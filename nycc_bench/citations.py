"""Sources of the three benchmark families: title, license, upstream location and BibTeX, in one place."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """One benchmark family: the paper, its upstream data and the terms it comes under."""

    key: str
    title: str
    license: str  # Hub license identifier
    upstream: str
    bibtex: str


HESSEL2023 = Family(
    key="hessel2023",
    title="Hessel et al. 2023, Do Androids Laugh at Electric Sheep? (matching, ranking, explanation)",
    license="cc-by-4.0",
    upstream="https://huggingface.co/datasets/jmhessel/newyorker_caption_contest",
    bibtex="""@inproceedings{hessel2023androids,
  title={Do Androids Laugh at Electric Sheep? {Humor} ``Understanding'' Benchmarks from {The New Yorker Caption Contest}},
  author={Hessel, Jack and Marasovi{\\'c}, Ana and Hwang, Jena D. and Lee, Lillian and Da, Jeff and Zellers, Rowan and Mankoff, Robert and Choi, Yejin},
  booktitle={Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics},
  year={2023}
}""",
)
ZHANG2024 = Family(
    key="zhang2024",
    title="Zhang et al. 2024, Humor in AI (crowd ratings, caption generation, preference pairs)",
    license="cc-by-4.0",
    upstream="https://github.com/nextml/caption-contest-data-api and https://github.com/yguooo/cartoon-caption-generation",
    bibtex="""@inproceedings{zhang2024humor,
  title={Humor in {AI}: Massive Scale Crowd-Sourced Preferences and Benchmarks for Cartoon Captioning},
  author={Zhang, Jifan and Jain, Lalit and Guo, Yang and Chen, Jiayi and Zhou, Kuan Lok and Suresh, Siddharth and Wagenmaker, Andrew and Sievert, Scott and Rogers, Timothy and Jamieson, Kevin and Mankoff, Robert and Nowak, Robert},
  booktitle={Advances in Neural Information Processing Systems, Datasets and Benchmarks Track},
  year={2024}
}""",
)
HUMORBENCH = Family(
    key="humorbench",
    title="Narad et al. 2025, HumorBench (explain the joke, element autograder)",
    license="mit",
    upstream="https://github.com/ReubenNarad/Humor-Bench",
    bibtex="""@article{narad2025humorbench,
  title={Which {LLMs} Get the Joke? Probing Non-{STEM} Reasoning Abilities with {HumorBench}},
  author={Narad, Reuben and others},
  year={2025}
}""",
)
FAMILIES: dict[str, Family] = {f.key: f for f in (HESSEL2023, ZHANG2024, HUMORBENCH)}
