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
  #intro h1 {font-size: 1.3em !important; margin: 0 !important;}
  #banner * {font-size: 12px !important; line-height: 1.3 !important;}
  #banner > div > * {padding: 4px 8px !important; margin: 0 !important;}
  .gradio-container {--layout-gap: 8px;}
  #search-row {flex-wrap: wrap !important; gap: 4px !important;}
  #search-row > .form {flex: 1 1 100% !important; flex-direction: row !important; flex-wrap: wrap !important;}
  #search-row > .form > * {flex: 1 1 30% !important; min-width: 30% !important;}
  #search-row > .form > #search {flex: 1 1 100% !important;}
  #search-row #refresh {flex: 1 1 100% !important; min-height: 0 !important; padding: 2px !important;}
  #search-row label span {white-space: normal;}
  #arena-intro {order: 99;} /* the rules under the battle on a phone: the captions and votes first */
  #arena-intro p {font-size: 0.85em; margin: 2px 0;}
  #arena-image {height: 170px !important; max-height: 170px !important;}
  #arena-image img {max-height: 130px !important; object-fit: contain;}
  #arena-votes {gap: 4px;} #arena-votes button {min-width: 45%; flex: 1 1 45%;}
}
"""
