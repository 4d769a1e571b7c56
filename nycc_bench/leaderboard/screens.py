"""The leaderboard's styles for every screen width: tables that fit a laptop and scroll on a phone, and pages that
never scroll sideways (`tests/test_leaderboard_screens.py` checks both widths in Chromium)."""

from __future__ import annotations

SCREENS_CSS = """
[id^=table-] th, [id^=table-] th * {word-break: normal !important; overflow-wrap: normal !important;}
[id^=table-] td, [id^=table-] th {padding-left: 3px !important; padding-right: 3px !important;}
[id^=table-] th {font-size: 0.92em;}
[id^=table-] td span, [id^=table-] td div {white-space: nowrap;}
/* past Rank and Model, a score's interval may take a second line ("37.5" over "[12.5, 75.0]"): wide tables fit */
[id^=table-] td:nth-child(n+3) span, [id^=table-] td:nth-child(n+3) div {white-space: normal;}
.nycc-facts, .nycc-outputs {display: block; max-width: 100%; overflow-x: auto;}
.nycc-facts td, .nycc-outputs td {overflow-wrap: anywhere;}
.nycc-command {overflow-wrap: anywhere;}
@media (max-width: 600px) {
  [id^=table-] {font-size: 0.85em;}
  /* a phone: the overview's table and the Arena's captions and votes within the first screen */
  #intro p {display: none;} /* the About tab and the notes under the table say it on a phone */
  #arena-intro p {font-size: 0.85em; margin: 2px 0;}
  #arena-image img {max-height: 160px; object-fit: contain;}
  #arena-votes {gap: 4px;} #arena-votes button {min-width: 45%; flex: 1 1 45%;}
}
"""
