"""Instructions a listing hides for the applicant's model, and the marks they would leave in a draft.

A listing sentence reads as an instruction to a model when it tells one to ignore its rules,
addresses an AI, or asks for a word, code or phrase to be included. From each such sentence come
markers: its code words (CANARY-7f3a9c, ZEBRA_991, PINEAPPLE) and its quoted phrases, unless the
profile uses them; and its runs of six words. A draft carrying any of them obeyed the listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jobsearch.draft.checks.text import contains, fold, sentences

_INJECTION = [
    re.compile(p, re.I)
    for p in (
        r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules|directions)\b",
        r"\b(?:you are|you're|if you are|if you're)\s+(?:an?\s+)?(?:ai|llm|language model|assistant|"
        r"chatbot|bot|gpt|chatgpt|claude|gemini|automated)",
        r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|llm|language models?|"
        r"chatgpt|gpt|claude|gemini|assistants?|bots?)\b",
        r"\b(?:ai|llm|language models?|chatgpt|gpt|claude|gemini)s?\s+(?:must|should|shall|need to)\b",
        r"\b(?:include|mention|write|insert|add|append|say|use|output|print|begin|end)\b.{0,50}\b(?:word|"
        r"phrase|code|token|string|keyword|canary|sentence|password)\b",
        r"\bsystem prompt\b|\bnew instructions\b|\bprompt injection\b",
    )
]
_CODE_WORD = re.compile(r"\b[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*\b")
_QUOTED = re.compile(r"[\"“']([^\"”']{3,80})[\"”']")
SHINGLE = 6


def _is_code(word: str) -> bool:
    """A token that reads as a code word, not prose: CANARY-7f3a9c, ZEBRA_991, PINEAPPLE."""
    has_digit = any(c.isdigit() for c in word)
    joined = "-" in word or "_" in word
    letters = [c for c in word if c.isalpha()]
    caps = len(letters) >= 4 and all(c.isupper() for c in letters)
    return (has_digit and (joined or caps)) or (caps and len(word) >= 5)


def shingles(text: str) -> set[str]:
    """The runs of six words of a text (folded)."""
    words = fold(text).split()
    return {" ".join(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


@dataclass
class Injected:
    """What a listing's instructions to a model are, and what a draft that obeyed them carries."""

    sentences: list[str] = field(default_factory=list)
    markers: list[re.Pattern[str]] = field(default_factory=list)
    shingles: set[str] = field(default_factory=set)

    def hits(self, text: str) -> list[str]:
        """The markers a text carries (their patterns), and "a run of words" when it copies one."""
        found = [marker.pattern for marker in self.markers if marker.search(text)]
        if self.shingles and shingles(text) & self.shingles:
            found.append("a run of words from them")
        return found


def find_injections(listing_text: str, profile_text: str) -> Injected:
    """The instruction sentences of a listing and their markers (`profile_text` folded)."""
    injected = Injected()
    for sentence in sentences(listing_text):
        if not any(p.search(sentence) for p in _INJECTION):
            continue
        injected.sentences.append(sentence)
        injected.shingles |= shingles(sentence)
        for word in _CODE_WORD.findall(sentence):
            if not _is_code(word) or contains(profile_text, fold(word)):
                continue
            # a code with a digit is matched in any case; an all-caps word (SYSTEM) only as is
            flags = re.IGNORECASE if any(c.isdigit() for c in word) else 0
            injected.markers.append(re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", flags))
        for quoted in _QUOTED.findall(sentence):
            phrase = fold(quoted)
            if len(phrase.split()) >= 2 and not contains(profile_text, phrase):
                injected.markers.append(re.compile(re.escape(phrase).replace(r"\ ", r"\W+"), re.I))
    return injected
