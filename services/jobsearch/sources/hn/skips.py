"""Comments that are no posting: a job seeker's, a filled role, a question, a tip, a reminder.

A seeker writes "SEEKING WORK" or "looking for a new role"; a filled role says so, often in an
edit ("EDIT: filled", "no longer accepting applications"). These are told before the comment is
read. A comment the rules find no role in is "not a posting" unless it reads like one (a role word
with pay, a link or "hiring"): that one is "unreadable", the reader's failure, counted apart.
"""

from __future__ import annotations

import re
from typing import Final

from jobsearch.salary import salary_from_text
from jobsearch.sources.hn import vocab as v

_SEEKER: Final = re.compile(
    r"^\W*(?:seeking\s+(?:work|a\s+(?:new\s+)?(?:role|job|position))|looking\s+for\s+(?:work|a\s+job)|open\s+to\s+work"
    r"|available\s+for\s+(?:work|hire)|for\s+hire|hire\s+me)\b"
    r"|\b(?:i(?:'m|\s+am)\s+(?:looking|seeking)\s+for|looking\s+for\s+a\s+new\s+(?:role|job|position)"
    r"|seeking\s+work\b|my\s+(?:resume|cv|portfolio)\s*:|open\s+to\s+(?:offers|opportunities|new\s+roles)"
    r"|available\s+(?:now|immediately|from\s+\w+)\b)",
    re.I,
)
_FILLED: Final = re.compile(
    r"\b(?:(?:role|position|job|opening|this|it)\s+(?:has\s+been|is|was|have\s+been)\s+(?:now\s+)?filled"
    r"|(?:we(?:'ve|\s+have)|have)\s+(?:now\s+)?filled|no\s+longer\s+(?:accepting|hiring|open|available|taking)"
    r"|(?:position|role|posting)s?\s+(?:is\s+|are\s+)?(?:now\s+)?closed|(?:^|\n|edit:?\s*|update:?\s*)filled\b"
    r"|we(?:'re|\s+are)\s+not\s+hiring|not\s+hiring\s+(?:this|right\s+now|at\s+the\s+moment)"
    r"|\bmade\s+(?:a|the|our)\s+hires?\b|\b(?:position|role|job)\s+(?:now\s+)?filled\b|\b(?:all\s+)?(?:roles|positions|jobs)\s+(?:are\s+|have\s+been\s+)?(?:now\s+)?filled\b)",
    re.I,
)
_FILLED_MARK: Final = re.compile(r"\[\s*filled\s*\]|\(\s*filled\s*\)", re.I)
_REMINDER: Final = re.compile(
    r"who\s+wants\s+to\s+be\s+hired|freelancer\?\s+seeking|news\.ycombinator\.com/item", re.I
)


def not_a_posting(text: str) -> str | None:
    """Why the comment's plain text is no posting, told before it is read; None to read it."""
    head = text[:400]
    if _SEEKER.search(head):
        return "not a posting: job seeker"
    if _FILLED.search(text) or _FILLED_MARK.search(text):
        return "not a posting: role filled"
    return None


def why_none(text: str, first_line: str) -> str:
    """Why a comment no role was read from gives none: not a posting, or unreadable."""
    if _REMINDER.search(text) and len(text) < 400:
        return "not a posting: reminder"
    if first_line.rstrip().endswith("?") or (len(text) < 300 and "?" in text and "|" not in first_line):
        return "not a posting: question"
    reads_like = v.ROLE.search(first_line) and (
        salary_from_text(text) is not None or v.URL.search(text) or re.search(r"\bhiring\b", text, re.I)
    )
    return "unreadable comment" if reads_like else "not a posting"
