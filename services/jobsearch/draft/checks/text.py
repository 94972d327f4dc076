"""How the checks read text: sentences, clauses, words, and the capitalised names in them.

A careful tokenizer of our own rather than spaCy: spaCy's rule matcher needs part-of-speech tags
to tell a name from a sentence's first word, and the trained pipelines that give them do not
install here; its tokenizer alone would add a 30 MB dependency for what a page of regular
expressions does. What a draft says is read in three layers:

- a *sentence* ends at `.`, `!` or `?` before a space (not before a word in lower case: "an
  M.Sc. in Data Science" is one sentence), or at a line break (a letter's greeting, sign-off and
  bullet points are sentences of their own);
- a *clause* is a sentence's part between `;`, `:`, dashes, brackets, or a comma before `and`,
  `but`, `while`, `though`: "I have run Docker for years, but Kubernetes is new to me" is two
  clauses, one claim and one gap;
- a *word* keeps its inner apostrophes, hyphens, dots and slashes ("Naira Rails'", "B.Sc.",
  "CI/CD", "scikit-learn"); `Word.first` says whether it opens its sentence (where a capital
  letter says nothing about a name).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# A sentence ends at . ! ? before a space, unless the next word is a word in lower case ("an
# M.Sc. in Data Science", "at 7 a.m. on a Monday": a dot of an abbreviation), or at a line break.
_SENTENCE = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]*[ \t]+(?![a-z]+(?:[\s,;:.!?)]|$))|\s*\n+\s*")
_CLAUSE = re.compile(
    r"\s*[;:()\[\]]\s*|\s+[\u2014\u2013-]\s+|,\s+(?=(?:and|but|while|though|although|whereas|yet|so|which|who|where)\b)"
    r"|\s+(?=(?:but|although|though|whereas)\s)|\s+and\s+(?=(?:am|I|I'm|I've|have|was|will|would|can)\s)"
)
# A word: letters or digits, with inner ' - . / & + joining more of them; a trailing ' of a
# possessive ("Rails'") is dropped by `bare`.
_WORD = re.compile(r"[^\W_](?:[\w'\u2019.+&/-]*[\w+])?#?", re.UNICODE)  # "C#" and "F#" are words
_ABBREVIATIONS = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Jr|Sr|Inc|Ltd|Co|Corp|vs|e\.g|i\.e|etc)\.$")
_FOLD = re.compile(r"[^a-z0-9+#]+")
_POSSESSIVE = re.compile(r"'s\b")


@dataclass(frozen=True)
class Word:
    """One word of a sentence, where it stands, and whether it opens the sentence."""

    text: str
    start: int
    end: int
    first: bool

    @property
    def bare(self) -> str:
        """The word without a possessive or trailing dot: "Havenlijn's" -> "Havenlijn"."""
        return bare(self.text)

    @property
    def capitalised(self) -> bool:
        """Whether it starts with a capital letter (a name, a title, or a sentence's first word)."""
        return self.text[:1].isupper()


def fold(text: str) -> str:
    """Lower case, accents kept apart, runs of punctuation as one space: for comparing phrases."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = _POSSESSIVE.sub("", text.replace("\u2019", "'"))
    return " ".join(_FOLD.sub(" ", text).split())


def bare(word: str) -> str:
    """A word without a possessive ('s, ') or a trailing full stop."""
    word = word.replace("\u2019", "'")
    for tail in ("'s", "'"):
        if word.endswith(tail):
            word = word[: -len(tail)]
    return word.rstrip(".")


def sentences(text: str) -> list[str]:
    """The sentences of a text (abbreviations such as "Dr." or "St." do not end one)."""
    out: list[str] = []
    pending = ""
    for raw in _SENTENCE.split(text):
        piece = raw.strip()
        if not piece:
            continue
        pending = f"{pending} {piece}" if pending else piece
        if not _ABBREVIATIONS.search(pending):
            out.append(pending)
            pending = ""
    if pending:
        out.append(pending)
    return out


def clauses(sentence: str) -> list[str]:
    """The clauses of one sentence."""
    return [c for c in _CLAUSE.split(sentence) if c and c.strip()]


def words(sentence: str) -> list[Word]:
    """The words of one sentence; the first one (after any opening quote or bullet) is `first`."""
    found = []
    for i, match in enumerate(_WORD.finditer(sentence)):
        found.append(Word(match.group(), match.start(), match.end(), first=i == 0))
    return found


def contains(haystack: str, phrase: str) -> bool:
    """Whether a folded phrase occurs in a folded text as whole words."""
    return bool(phrase) and f" {phrase} " in f" {haystack} "
