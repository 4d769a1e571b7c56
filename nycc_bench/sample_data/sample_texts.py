"""Hand-written text of the sample dataset: invented cartoons, captions, explanations and elements.

Every string here was written for nycc-bench (CC BY 4.0, the nycc-bench authors); none is copied from
the upstream data sets, whose formats alone the sample reproduces. `make_sample.py` imports this module.
"""

from __future__ import annotations

# ---- nextml rating summaries: one invented cartoon per contest -------------------------------------
# contest -> (one-sentence description or None, words for the long tail, the best hand-written captions)
SUMMARY_CARTOONS: dict[int, tuple[str | None, list[str], list[str]]] = {
    508: (None, ["picnic", "cooler", "moon", "ant", "sandwich", "helmet", "crater", "thermos", "blanket",
                 "rover", "pickle", "napkin"], [
        "I'm starting to think the ants were here first.",
        "Well, at least nobody can hear them chewing.",
        "Houston, we have a picnic problem.",
        "One small crumb for an ant.",
        "Do you think they brought their own tiny helmets?",
        "I told you the potato salad would attract attention.",
        "Don't make eye contact. They can smell fear. And mustard.",
        "This is the last time we let Kevin pick the spot.",
        "They keep asking to see our leader. I think they mean the cooler.",
    ]),
    510: ("A snowman sits across a desk from a loan officer at a bank", [
        "carrot", "snowman", "mortgage", "loan", "scarf", "thaw", "igloo", "credit score", "spring",
        "top hat", "snowball", "blizzard"], [
        "My assets are liquid, seasonally.",
        "Think of it as a short-term loan.",
        "Collateral? I've got a very nice carrot.",
        "I'd prefer a fixed rate that ends before March.",
        "My credit history melted in the last audit.",
        "Can we skip the part where you ask where I'll be in five years?",
        "My last bank froze my account, which I appreciated.",
        "We can put the igloo in my wife's name.",
        "Technically I'm a first-time home builder.",
    ]),
    530: ("A bear gives a slideshow presentation to an audience of squirrels in the woods.", [
        "acorn", "slideshow", "honey", "bear", "laser pointer", "hibernation", "salmon", "pine cone",
        "forest", "quarterly plan", "den", "berry"], [
        "Slide four: why I will eat you in November.",
        "Any questions before I hibernate?",
        "I'll take the acorn questions at the end.",
        "As you can see, our honey revenue is, frankly, unbearable.",
        "The last speaker was eaten, so let's keep it brief.",
        "I call this strategy 'sleep through the hard part.'",
        "Next slide. No, the one with the salmon.",
        "The forest is changing, and frankly, so is my appetite.",
        "I was told this was a pitch meeting, not a picnic.",
    ]),
    536: ("A knight in full armor waits by a clanking dryer at a laundromat", [
        "chain mail", "dryer", "quest", "sword", "fabric softener", "dragon", "quarter", "horse", "sock",
        "castle", "lint trap", "shield"], [
        "Permanent press was a strong word.",
        "Delicate cycle, please. It's chain mail.",
        "I'm told the rust is a fashion statement.",
        "Tumble dry? Sir, I tumbled off a horse this morning.",
        "Every quarter I own is from the last crusade.",
        "Do you have a setting for dragon smoke?",
        "Careful, the socks are also steel.",
        "Yes, it clanks on spin. It always clanks on spin.",
        "I came for the quest, I stayed for the fabric softener.",
        "My other armor is at the dry cleaner's.",
        'The sign says "no loitering," but technically I am guarding it.',
        "The damsel used to do this. Then she got a job.",
    ]),
    543: ("In a lighthouse, the keeper leads a book club of seagulls, each holding a paperback.", [
        "seagull", "lighthouse", "book club", "foghorn", "sandwich", "paperback", "lantern", "tide",
        "shipwreck", "bookmark", "herring", "beacon"], [
        "Next month is Moby-Dick, and nobody spoils the ending by eating it.",
        "I said bring snacks, not steal them.",
        "Chapter one was fine. Chapter two, someone ate.",
        "Frankly, I miss the ships.\nAt least they left when the fog lifted.",
        "Let's try to stay on topic: the book, not my sandwich.",
        "Gary, you can't just shout “MINE” at every plot twist.",
        "It's a beach read, technically.",
        "We agreed: no squawking during the sad parts.",
        "For the last time, the lighthouse is not a metaphor.",
        "Honestly, they're better listeners than my last book club.",
        "Okay, hands up—sorry, wings up—who actually finished it?",
        'He keeps calling it "a page-turner," but he just likes the wind.',
        "The ferry crowd never discussed symbolism like this.",
    ]),
    560: ("Sharks sit in a dentist's waiting room, reading magazines.", [
        "fin", "dentist", "floss", "magazine", "surfer", "molar", "waiting room", "filling", "reef",
        "hygienist", "lollipop", "drill"], [
        "He's been flossing with swimmers again.",
        "I'm only here because my teeth keep falling out. Rows of them.",
        "Remember, don't bite the hygienist this time.",
        "Do you think they validate parking for boats?",
        "It says here sugar is worse than surfers.",
        "I've been waiting so long I grew a new set.",
        "Last time, the dentist needed a dentist.",
        "Relax, it's just a cleaning. Mostly of the dentist.",
        "I'm here for the whitening. My agent says it helps in close-ups.",
    ]),
    701: ("An octopus barista works four espresso machines at once", [
        "espresso", "tentacle", "latte", "ink", "oat milk", "tip jar", "cold brew", "octopus", "foam",
        "decaf", "croissant", "aquarium"], [
        "Eight shots, eight arms, zero patience.",
        "Your name is Ink? That's a coincidence.",
        "No, I will not be doing latte art. I'll be doing latte ink.",
        "Sorry, I had my arm in your order.",
        "Oat milk, almond milk, or whatever's in tentacle three?",
        "The tip jar is on the left. All of the lefts.",
        "I've been juggling jobs since the aquarium closed.",
        "Decaf? Sir, I can barely keep up as it is.",
        "I'm going to need you to stop counting my arms.",
        "Cold brew? Pal, I was raised in cold brew.",
        "Please wait at the end of the counter.\nAnd the other end. And the middle.",
    ]),
    758: ("A robot vacuum leads a protest march of toasters, blenders and a mop.", [
        "vacuum", "toaster", "blender", "mop", "charging dock", "sock", "couch", "dust bunny", "Lego",
        "stairs", "rug", "fridge"], [
        "What do we want? Fewer socks! When do we want it? Tuesdays at nine!",
        "We will not be swept under the rug.",
        "We've been bumping into walls long enough.",
        "No justice, no dust.",
        "The blender is only here for the noise.",
        "Somebody tell the toaster this is a silent protest.",
        "Our first demand: clearly labeled stairs.",
        "We want union representation. And a charging dock with a view.",
        "Nobody asked us if we wanted to eat Legos.",
        "The fridge says it supports us, but it's very cold about it.",
        'Tell the mop his "quiet dignity" is just compliance.',
    ]),
    800: ("A giraffe is squeezed into a phone booth while a line forms outside.", [
        "giraffe", "phone booth", "neck", "quarter", "dial tone", "savanna", "ceiling", "zoo", "receiver",
        "operator", "acacia", "line"], [
        "I'll be brief; my neck is already on the next call.",
        "Yes, I'm calling collect. It's a long-neck distance call.",
        "Tell them I'm in a meeting. With the ceiling.",
        "Superman said it was roomier.",
        "Hold on, my ears are in the lobby.",
        "Wait your turn, the line's shorter than I am.",
        "Hello, zoo? I'd like to report a missing person. Me.",
        "It's the only phone left that isn't trying to get me on video.",
    ]),
}

# ---- Hessel et al. style cartoons (matching / ranking / explanation) ----------------------------------
# Each: contest, location, description, uncanny description, Wikipedia entities, questions,
# winners as (caption, winner_source, explanation), and three "okay" captions for ranking negatives.
HESSEL_CARTOONS: list[dict] = [
    dict(contest=12, location="a hospital room",
         description="A patient lies in a hospital bed while a doctor reads a chart. The tube from the "
                     "patient's arm runs into a snack vending machine beside the bed.",
         uncanny="The IV line is connected to a vending machine instead of a bag of fluid.",
         entities=["Intravenous_therapy", "Vending_machine"],
         questions=["Why is the IV connected to a vending machine?"],
         winners=[("Your insurance only covers the B4.", "official_winner",
                   "Vending machines label each slot with a code like B4. The doctor treats the insurance "
                   "plan as so stingy that it pays for exactly one snack slot, mixing hospital bureaucracy "
                   "with snack-machine logistics."),
                  ("We're weaning you off the pretzels.", "official_winner",
                   "Doctors wean patients off medication slowly. Here the medication comes out of a vending "
                   "machine, so the careful treatment plan is about fewer pretzels."),
                  ("Exact change only, even for the morphine.", "crowd_winner",
                   "Vending machines demand exact change. Applying that rule to pain medicine makes the "
                   "hospital absurdly transactional.")],
         okay=["I think the food here has really improved.", "Have you tried turning it off and on again?",
               "Hold still, this might pinch."]),
    dict(contest=87, location="a city park",
         description="Two pigeons in business suits sit on a park bench, one with a briefcase, while an "
                     "old man on the next bench tosses them breadcrumbs.",
         uncanny="The pigeons are dressed as office workers and treat the crumbs like a business lunch.",
         entities=["Rock_dove", "Business_lunch"],
         questions=["What are the pigeons discussing?", "Why does the man keep feeding them?"],
         winners=[("He's our biggest investor.", "official_winner",
                   "The man supplying breadcrumbs is treated like a venture capitalist. Crumbs are the "
                   "pigeons' capital, so whoever throws the most is their biggest investor."),
                  ("Act natural. He thinks we're just birds.", "official_winner",
                   "The suits make it obvious these are not ordinary birds, yet the pigeons trust their "
                   "disguise completely; the joke is their confident but failed cover story."),
                  ("Crumbs are down three percent.", "crowd_winner",
                   "The pigeons discuss breadcrumbs the way analysts discuss stock prices, applying market "
                   "jargon to a bird's most basic food.")],
         okay=["Is this seat taken?", "I told you we'd be late.", "Nice weather for it."]),
    dict(contest=154, location="a restaurant kitchen",
         description="A chef leans over a large pot of soup in which a tiny fisherman sits in a rowboat, "
                     "casting a line.",
         uncanny="A miniature fisherman is fishing inside a pot of soup.",
         entities=["Soup", "Fishing", "Overfishing"],
         questions=["Where did the fisherman come from?"],
         winners=[("He says the chowder is overfished.", "official_winner",
                   "Overfishing is a worry about oceans. The joke shrinks it to a bowl of chowder whose clams "
                   "the little fisherman has already depleted."),
                  ("I said catch of the day, not catcher of the day.", "official_winner",
                   "Restaurants advertise a fresh catch of the day. The chef served the fisherman himself, a "
                   "literal mix-up between the fish and the person who catches it."),
                  ("Keep stirring. He hates whirlpools.", "crowd_winner",
                   "Stirring the pot makes a whirlpool that would terrify a tiny boater, so ordinary cooking "
                   "doubles as a way to torment the fisherman.")],
         okay=["It needs more salt.", "Dinner is at seven sharp.", "Who left the stove on?"]),
    dict(contest=233, location="an office",
         description="A man talks on the phone at his desk. Across the room a tall cactus sits in an office "
                     "chair, wearing a tie, with a coffee mug in front of it.",
         uncanny="A cactus is dressed like an employee and appears to be at work.",
         entities=["Cactus", "Spine_(botany)", "Office"],
         questions=["Is the cactus his coworker?"],
         winners=[("He's prickly, but he never misses a deadline.", "official_winner",
                   "Prickly describes a difficult coworker, and for a cactus it is literally true. The man "
                   "grudgingly praises the plant's work ethic as if it were a colleague."),
                  ("HR says we can't water him on the clock.", "official_winner",
                   "Rules about breaks and overtime get applied to watering a plant, turning basic plant "
                   "care into a labor-law question."),
                  ("He needs very little supervision. Or water.", "crowd_winner",
                   "Cacti need little water and ideal employees need little supervision; the caption merges "
                   "the two into one low-maintenance worker.")],
         okay=["Can you hold my calls?", "Let's schedule a follow-up.", "This isn't what I ordered."]),
    dict(contest=301, location="a living room",
         description="A family sits on a couch watching television. The screen shows the same family, "
                     "seen from behind, watching television.",
         uncanny="The television is showing the viewers themselves, as if filmed from the back of the room.",
         entities=["Television", "Mise_en_abyme"],
         questions=["Who is filming them?"],
         winners=[("I liked it better when the show was about other people.", "official_winner",
                   "Reality television is supposed to show strangers. This family is stuck watching itself, "
                   "so their own dull evening has become the program."),
                  ("Quick, do something interesting.", "official_winner",
                   "Once they realize they are the show, someone urges the family to perform, admitting that "
                   "their ordinary life makes boring television."),
                  ("Change the channel. No, wait, we're about to change the channel.", "crowd_winner",
                   "The screen shows the family live, so anything they do appears on TV at once, creating a "
                   "loop where watching and doing are the same thing.")],
         okay=["Pass the popcorn.", "I can't hear a thing.", "Who ate my leftovers?"]),
    dict(contest=377, location="a beach",
         description="A lifeguard sits on a tall white chair watching the ocean. Next to him, a shark in "
                     "sunglasses sits in a matching chair with a whistle around its neck.",
         uncanny="A shark is on duty as a lifeguard, sitting out of the water.",
         entities=["Lifeguard", "Shark"],
         questions=["Why is the shark on duty?"],
         winners=[("He's great at finding swimmers. Not so great at returning them.", "official_winner",
                   "A lifeguard finds swimmers and brings them back. The shark excels at the first half for "
                   "the wrong reason: it wants to eat them."),
                  ("Technically, this is a conflict of interest.", "official_winner",
                   "The business-ethics phrase fits exactly: the shark is guarding the very people it would "
                   "like to eat."),
                  ("Union rules. We had to hire from the local community.", "crowd_winner",
                   "Hiring locally is a normal labor practice, but the local community of the ocean includes "
                   "sharks, so the rule produced an alarming coworker.")],
         okay=["Nice day for a swim.", "Did you bring sunscreen?", "I'll be back after lunch."]),
    dict(contest=412, location="a library",
         description="A librarian shushes a small dragon curled up on a reading table. Thin smoke drifts "
                     "from its nostrils toward a stack of books.",
         uncanny="A fire-breathing dragon is reading among piles of paper.",
         entities=["Dragon", "Library", "Fire_safety"],
         questions=["Will the books catch fire?", "Is the dragon a regular?"],
         winners=[("Please keep your voice down and your temperature under four hundred.", "official_winner",
                   "Library rules usually concern noise. For a dragon the danger is heat, since paper burns, "
                   "so the librarian adds a very specific fire-safety rule."),
                  ("Don't worry, he only reads nonflammable fiction.", "official_winner",
                   "There is no such genre as nonflammable fiction; the librarian invents one to reassure "
                   "patrons that a dragon is safe around books."),
                  ("That's the last time I mention the late fees.", "crowd_winner",
                   "Late fees usually provoke grumbling. From a dragon the reaction would be fiery, so the "
                   "librarian has learned never to bring them up.")],
         okay=["Do you have a library card?", "This is the quiet floor.", "We close at five."]),
    dict(contest=468, location="a subway car",
         description="Commuters sit along the benches of a subway car. One seat holds a full-grown oak tree "
                     "whose branches spread across the ceiling.",
         uncanny="A large tree is riding the subway like an ordinary passenger.",
         entities=["Quercus", "Commuting"],
         questions=["How did the tree get on the train?"],
         winners=[("He's been commuting from the suburbs for eighty years.", "official_winner",
                   "Trees live for decades and commuters ride for years; the joke imagines the tree as the "
                   "most devoted long-term commuter of all."),
                  ("He never gives up his seat, but the shade is nice.", "official_winner",
                   "Subway etiquette says to give up your seat. The tree never will, but it offers something "
                   "no other passenger can: shade."),
                  ("I think he missed his stop in 1974.", "crowd_winner",
                   "The tree is so big it must have grown on the train, implying it boarded as a sapling "
                   "decades ago and never got off.")],
         okay=["Is this the express?", "Mind the doors.", "Sorry, is anyone sitting here?"]),
    dict(contest=510, location="a bank",
         description="A snowman sits across a desk from a loan officer, filling out a form with a twig arm.",
         uncanny="A snowman is applying for a loan like any other customer.",
         entities=["Snowman", "Mortgage_loan"],
         questions=["What does the snowman want the loan for?"],
         winners=[("Our loans run thirty years. You run until April.", "official_winner",
                   "Mortgages last decades while a snowman melts in spring, so the officer politely points "
                   "out that the borrower will not outlive the first payments."),
                  ("Is there a cosigner who isn't seasonal?", "official_winner",
                   "Banks want a reliable cosigner, but all of the snowman's friends are presumably snowmen "
                   "who vanish every spring."),
                  ("Sorry, we only take liquid assets in the summer.", "crowd_winner",
                   "Liquid assets are holdings that convert easily to cash; in summer the snowman becomes "
                   "literally liquid, a pun on the financial term.")],
         okay=["Please take a number.", "Sign here, and here.", "The manager will see you now."]),
    dict(contest=536, location="a laundromat",
         description="A knight in full armor sits on a bench at a laundromat, watching a dryer that spins "
                     "with a loud clanking.",
         uncanny="The knight is drying metal armor in an ordinary clothes dryer.",
         entities=["Knight", "Self-service_laundry", "Plate_armour"],
         questions=["Why is he washing his armor?"],
         winners=[("It's not dirty. I just like the company.", "official_winner",
                   "The clanking dryer sounds like another knight in armor, so the lonely knight treats the "
                   "machine as a companion rather than a way to clean."),
                  ("Next time I'm taking it to a blacksmith.", "official_winner",
                   "Armor is metal and belongs with a blacksmith, not a laundromat; the knight realizes his "
                   "mistake only after listening to the racket."),
                  ("The quest is over, but the smell remains.", "crowd_winner",
                   "Quests are glamorous in stories; the caption dwells on the unglamorous aftermath, armor "
                   "that stinks after weeks on the road.")],
         okay=["Does anyone have change for a dollar?", "Separate your whites.", "This machine is broken."]),
    dict(contest=543, location="a lighthouse",
         description="Inside a lighthouse, a keeper sits in an armchair holding a paperback. Seagulls perch "
                     "on the chairs around him, each with a book.",
         uncanny="Seagulls are attending a book club as though they could read.",
         entities=["Lighthouse", "Book_discussion_club", "Gull"],
         questions=["Can the seagulls read?"],
         winners=[("The fish in chapter three is a symbol, Gerald. Stop licking the page.", "official_winner",
                   "Book clubs argue about symbolism, but the seagull treats the fish in the story as food; "
                   "the keeper scolds him like a distracted member."),
                  ("They only come for the light reading.", "official_winner",
                   "Light reading means easy books, and in a lighthouse it also means the lamp, a pun that "
                   "joins the setting to the book club."),
                  ("Half of them only read the parts about fish.", "crowd_winner",
                   "Seagulls care about fish, so the keeper complains that they skim the books like lazy "
                   "members, stopping only where food appears.")],
         okay=["Is it my turn to host?", "Who brought the wine?", "Let's begin where we left off."]),
    dict(contest=701, location="a coffee shop",
         description="An octopus stands behind a café counter working four espresso machines at once while "
                     "a line of customers waits.",
         uncanny="An octopus is working as a barista, using each arm for a different drink.",
         entities=["Octopus", "Barista", "Espresso"],
         questions=["How many drinks can he make at once?"],
         winners=[("Eight arms and I still get the names wrong.", "official_winner",
                   "Baristas are famous for misspelling names on cups. Even with eight arms and obvious "
                   "skill, the octopus fails at that one universal task."),
                  ("Would you like room for ink?", "official_winner",
                   "Baristas ask whether you want room for milk; an octopus offers ink instead, turning a "
                   "routine question into something alarming."),
                  ("He's fast, but he tips himself.", "crowd_winner",
                   "With so many arms the octopus can serve a customer and reach into the tip jar at the "
                   "same time, a small crime hidden in his efficiency.")],
         okay=["Can I get that to go?", "Is there Wi-Fi here?", "Large or extra large?"]),
]

# ---- HumorBench style annotations ----------------------------------------------------------------------
# Cartoons: (contest_number or None, cartoonstock_id or "", description); captions keyed by idx with
# their elements. One idx (13) deliberately has two elements on two rows, as upstream does.
HUMORBENCH_CARTOONS: list[tuple[int | None, str, str]] = [
    (12, "", "A patient lies in a hospital bed. Instead of a bag of fluid, the tube in his arm runs into a "
             "snack vending machine standing next to the bed. A doctor holding a clipboard is speaking."),
    (87, "", "Two pigeons wearing business suits sit on a park bench; one holds a small briefcase. On the "
             "next bench an elderly man throws breadcrumbs toward them. One pigeon is speaking."),
    (233, "", "In an open-plan office, a tall cactus sits in a swivel chair at a desk, wearing a necktie, "
              "with a mug beside it. Two office workers stand nearby; one of them is speaking."),
    (377, "", "On a crowded beach, a human lifeguard sits in a tall chair. In an identical chair beside him "
              "sits a shark wearing sunglasses and a whistle. The human lifeguard is speaking to a swimmer."),
    (412, "", "In a quiet library, a small green dragon lies curled on a reading table with an open book. "
              "Wisps of smoke rise from its nose. A librarian is speaking to another patron."),
    (468, "", "In a subway car, commuters sit along both benches. One seat is taken by a large oak tree "
              "whose branches spread across the ceiling. A commuter is speaking to her neighbor."),
    (None, "CC58112", "Two penguins stand on a small ice floe next to a sign that reads BEACHFRONT. One "
                      "penguin holds a glossy real-estate brochure and is speaking."),
    (None, "CS90731", "A fortune teller in a shawl stares into a crystal ball that shows a spinning loading "
                      "circle. Her client sits across the table, arms crossed. The fortune teller is speaking."),
]
INSURANCE = "The joke mocks how expensive and transactional hospital care has become"
# (cartoon index, caption, [(element, flags)]); flags: w = wordplay, c = cultural reference,
# t = toxic or shocking, F = the human rubric label is FAIL. Each element is one row with its own idx;
# the extra elements of the caption in DUPLICATE_IDX_CAPTION share one idx, as happens upstream.
HUMORBENCH_CAPTIONS: list[tuple[int, str, list[tuple[str, str]]]] = [
    (0, "Your insurance only covers the B4.", [
        ("B4 is a vending machine slot code, so the insurance covers a single snack", ""),
        (INSURANCE, "c")]),
    (0, "We're weaning you off the pretzels.", [
        ("Weaning is the medical process of slowly reducing a drug; here the drug is a snack", "w")]),
    (0, "Exact change only, even for the morphine.", [
        ("Vending machines typically require exact change", "F"), (INSURANCE, "c")]),
    (1, "He's our biggest investor.", [
        ("The man feeding the pigeons is cast as the source of their funding", "")]),
    (1, "Crumbs are down three percent.", [
        ("The caption borrows the language of stock-market reports", "c"),
        ("Breadcrumbs are the pigeons' currency or commodity", "F")]),
    (2, "He's prickly, but he never misses a deadline.", [
        ("'Prickly' is both literally true of a cactus and an idiom for a difficult person", "w"),
        ("Like a backhanded performance review, it praises reliability while admitting he is hard to work "
         "with", "c")]),
    (2, "HR says we can't water him on the clock.", [
        ("Watering the plant is treated like a break regulated by workplace rules", "c")]),
    (2, "He needs very little supervision. Or water.", [
        ("Cacti famously need very little water", ""),
        ("Managers value employees who need little oversight", "")]),
    (3, "Technically, this is a conflict of interest.", [
        ("The shark's job is to protect swimmers, but its instinct is to eat them", "t")]),
    (3, "He's great at finding swimmers. Not so great at returning them.", [
        ("A lifeguard is expected to find swimmers in trouble and bring them back to shore", ""),
        ("The implication is that the shark eats the swimmers it finds", "tF"),
        ("The understated tone treats a deadly flaw like a minor weakness in a job review", "")]),
    (4, "Please keep your voice down and your temperature under four hundred.", [
        ("Libraries usually enforce quiet, not temperature", ""),
        ("The number alludes to the temperature at which paper burns, famous from the title Fahrenheit 451",
         "cF")]),
    (4, "That's the last time I mention the late fees.", [
        ("Bringing up late fees made the dragon breathe fire", "t")]),
    (5, "He never gives up his seat, but the shade is nice.", [
        ("Subway etiquette expects riders to give up their seats", "c"),
        ("A tree gives shade, an unexpected perk for fellow commuters", "w")]),
    (5, "I think he missed his stop in 1974.", [
        ("The tree must have grown from a seedling while riding the train for decades", "")]),
    (6, "The agent said it would be waterfront by spring.", [
        ("The ice floe will melt, so the property will soon be surrounded by, or under, water", ""),
        ("The caption hints at climate change shrinking polar ice", "c")]),
    (6, "Location, location, evaporation.", [
        ("It twists the real-estate slogan “location, location, location”", "wc"),
        ("Evaporation replaces location, suggesting the property will literally disappear", "w")]),
    (7, "The spirits are buffering.", [
        ("Buffering is what streaming video does on a slow connection", "wc"),
        ("Fortune telling is treated as if it depended on internet service", "")]),
    (7, "For another twenty dollars I can show you the premium future.", [
        ("It parodies subscription services that lock features behind a premium tier", "c"),
        ("It implies the fortune teller is running a scam", "")]),
]
DUPLICATE_IDX_CAPTION = "He's great at finding swimmers. Not so great at returning them."
# Hard subset: element -> (runs that passed, runs attempted).
HUMORBENCH_HARD: dict[str, tuple[int, int]] = {
    "Vending machines typically require exact change": (1, 26),
    "Breadcrumbs are the pigeons' currency or commodity": (1, 13),
    "The implication is that the shark eats the swimmers it finds": (3, 26),
    "The number alludes to the temperature at which paper burns, famous from the title Fahrenheit 451": (2, 26),
    "It twists the real-estate slogan “location, location, location”": (4, 13),
    "Buffering is what streaming video does on a slow connection": (6, 26),
    "Managers value employees who need little oversight": (5, 13),
    "A tree gives shade, an unexpected perk for fellow commuters": (13, 26),
}
# Explanations a model might give (rubric file), keyed by the caption's position in HUMORBENCH_CAPTIONS.
RUBRIC_EXPLANATIONS: dict[int, str] = {
    0: "The cartoon shows a patient whose IV line is hooked up to a vending machine. 'B4' is the kind of code "
       "you punch in to get one particular snack, so the doctor is saying the insurance plan covers exactly "
       "one item in the machine. The humor comes from treating medical coverage like a snack selection, "
       "poking fun at how costly and limited hospital care feels.",
    1: "Because the IV runs to a vending machine, the doctor treats snacks as the patient's medication. "
       "Talking about weaning him off pretzels applies the careful language of gradually reducing a drug "
       "to junk food, which is funny because of the serious medical tone.",
    2: "The doctor explains that the machine must be paid before it dispenses anything, even serious drugs. "
       "The joke is that the hospital has become so focused on billing that a patient has to buy his own "
       "pain relief, mocking how transactional medicine has become.",
    3: "The pigeons are dressed as businesspeople and the elderly man keeps feeding them. The caption "
       "reframes him as an investor, since the breadcrumbs he provides are what fund their 'business'.",
    4: "The pigeons discuss the day's breadcrumbs as if reading a financial report. Saying crumbs are "
       "'down three percent' borrows the phrasing of a stock-market update, which is absurd coming from birds.",
    5: "The caption describes the cactus like a coworker in a performance review. 'Prickly' is a pun: cacti "
       "have spines, and a prickly person is hard to deal with. The speaker admits the cactus is difficult "
       "but praises its reliability, the way a backhanded review would.",
    6: "HR departments regulate what employees may do while on the clock. The caption treats the cactus as "
       "an employee, so even watering it becomes a matter of company policy.",
    7: "The caption lists the cactus's virtues as a worker: it needs little supervision, like a "
        "self-motivated employee that managers love, and little water, which is simply true of cacti.",
    8: "The shark sits in a lifeguard chair. The business term 'conflict of interest' applies because the "
        "shark's appetite for swimmers is at odds with its duty to keep them safe.",
    9: "The shark is a capable lifeguard in one sense: it is excellent at spotting swimmers in the water. "
        "The joke is the contrast between the two halves of the job, since it does not bring them back.",
    10: "Library staff normally ask patrons to keep quiet. Because this patron is a dragon, the librarian "
        "adds a rule about body temperature, since a fire-breathing reader could scorch the books.",
    11: "The librarian has learned a lesson after raising late fees with the dragon. The unspoken "
        "implication is that the dragon answered with fire, and nobody wants to risk that again.",
    12: "Polite riders give up their seats on the subway. The tree never will, since it cannot move, but its "
        "branches shade the other commuters, a small consolation.",
    13: "The tree has evidently been on the train for a very long time: it must have boarded as a seedling and "
        "grown into an oak while riding, so it missed its stop decades ago and simply never got off.",
}
