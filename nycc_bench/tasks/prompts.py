"""Prompt texts of every task, versioned next to each other (a changed prompt gets a new version)."""

from __future__ import annotations

# Hessel et al. 2023 — our wording of their zero-shot / 5-shot setup (the slides do not print the prompt).
MATCHING = (
    "In this task, you will see a description of a New Yorker cartoon and five captions. Only one of the "
    "captions was written for this cartoon; the others were written for other cartoons. Which caption truly "
    "corresponds to the described cartoon? Answer with the letter of the caption, as in \"Answer: C\"."
)
MATCHING_PIXELS = (
    "In this task, you will see a New Yorker cartoon and five captions. Only one of the captions was written "
    "for this cartoon; the others were written for other cartoons. Which caption truly corresponds to this "
    "cartoon? Answer with the letter of the caption, as in \"Answer: C\"."
)
RANKING = (
    "In this task, you will see a description of a New Yorker cartoon and two captions submitted to its caption "
    "contest. One of them was selected as a finalist; the other was not. Which caption is the finalist? Answer "
    "with the letter of the caption, as in \"Answer: A\"."
)
RANKING_PIXELS = (
    "In this task, you will see a New Yorker cartoon and two captions submitted to its caption contest. One of "
    "them was selected as a finalist; the other was not. Which caption is the finalist? Answer with the letter "
    "of the caption, as in \"Answer: A\"."
)
EXPLANATION = (
    "In this task, you will see a description of a New Yorker cartoon and its winning caption. Explain the joke "
    "in a few sentences, as if to a friend who doesn't get it yet: what makes this caption funny for this "
    "cartoon."
)
EXPLANATION_PIXELS = (
    "In this task, you will see a New Yorker cartoon and its winning caption. Explain the joke in a few "
    "sentences, as if to a friend who doesn't get it yet: what makes this caption funny for this cartoon."
)

# Zhang et al. 2024, appendix B.3 (system prompt as published; the user turn carries the description).
ZHANG_GENERATION_SYSTEM = (
    "I want you to act as a sophisticated reader of The New Yorker Magazine. You are competing in The New Yorker "
    "Cartoon Caption Contest. Your task is to generate funny captions for a cartoon. Here are some ideas for "
    "developing funny captions. First think about characteristics associated with the objects and people "
    "featured in the cartoon. Then consider what are the unusual or absurd elements in the cartoon. It might help "
    "to imagine conversations between the characters. Then think about funny and non-obvious connections that "
    "can be made between the objects and characters. Try to come up with funny captions that fit the cartoon, but "
    "are not too direct. It may be funnier if the person reading the caption has to think a little bit to get "
    "the joke. Next, I will describe a cartoon image and then you should generate 10 funny captions for the "
    "cartoon along with an explanation for each."
)
ZHANG_GENERATION_USER = (
    "The cartoon's description is: {description}.The uncanny description is: {uncanny}. The location of the "
    "cartoon is:{location}. The entities of the cartoon are: {entities}"
)
ZHANG_GENERATION_USER_SHORT = "The cartoon's description is: {description}."
