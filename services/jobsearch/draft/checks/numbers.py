"""Numbers: every figure a draft states is one the profile or the listing states, or one the
profile's dates give.

A percentage, an amount, a count or a year must be a figure of the sources ("cut costs by 40%" when
no source says 40% is an invention; "the 9,000 shops you serve" is the listing's). A duration must
be one the profile's dates give, rounded as a person rounds ("seven years" for 7.4, "almost three
years" for 2.7, "three and a half years"), or one a source states ("five years on the wards"); a
duration in a clause naming one of the person's employers must be that employer's. "5+ years" is
true when the dates give at least five. A figure inside a term the listing writes ("4-on/4-off") is
the listing's.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.claims import claims
from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.figures import Figure, figures, number_value, same
from jobsearch.draft.checks.teams import unsupported_teams
from jobsearch.draft.checks.text import clauses, contains, fold, sentences
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.wished import names_company
from jobsearch.jobs import Check

_ITEMS = re.compile(
    r"\s+(?:more\s+|other\s+|main\s+|key\s+|short\s+)?(?:things|reasons|ways|points|areas|examples|questions|"
    r"parts|gaps|words|sentences|lines|highlights|stories|notes)\b",
    re.IGNORECASE,
)
_ROUGHLY = re.compile(
    r"\b(almost|nearly|over|more than|about|around|roughly|close to|just under|just over)\s+$", re.I
)


_WISH = re.compile(
    r"\b(?:I['\u2019]d|would|will|I['\u2019]ll|could|happy|glad|love|like|hope|keen|welcome|"
    r"looking forward|help|bring|join|want|wish)\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"^\s*(?:which|who|where|when|whose)\b", re.IGNORECASE)
_ASIDE = re.compile(r"\bI\s+(?:think|believe|feel|suspect|hope|know)\b")
_SUBJECT = re.compile(r"\b(?:I|we)\b|\bI['\u2019]")


def _relative(clause: str) -> bool:
    """A relative clause about something else ("which matters to a group of 90 engineers"), not
    one with the person as its subject ("where I track 4,500 contracts")."""
    return bool(_RELATIVE.match(clause)) and not _SUBJECT.search(_ASIDE.sub("", clause))


_SPAN_NEXT = re.compile(
    r"^(?:\s*[,.;:)]|\s*$|\s+(?:at|with|in|there|of|as|and|on|for|before|since|years?)\b)", re.I
)


def _employer_span(figure: Figure, clause: str, facts: Facts) -> bool:
    """A bare figure beside an employer's name may be its duration: "the first three and a half
    at Naira Rails"; not one that counts a thing ("6 subsidiaries")."""
    if not _SPAN_NEXT.match(clause[figure.start + len(figure.text) :]) and not _LAST.search(
        clause[: figure.start]
    ):
        return False  # "the last five I've worked on ...": a span all the same
    return any(figure.value in facts.durations.get(e, set()) for e in facts.employers_in(clause))


def _stated(figure: Figure, facts: Facts, among: set[tuple[float, str]] | None = None) -> bool:
    known = facts.figures if among is None else among
    return any(same(figure.value, value) and unit in {figure.unit, ""} for value, unit in known) or any(
        same(figure.value, value) and figure.unit == "" for value, _ in known
    )


def _duration_ok(figure: Figure, clause: str, before: str, facts: Facts, sentence: str = "") -> bool:
    years = figure.value / 12 if figure.unit == "month" else figure.value
    if figure.unit and (figure.value, figure.unit) in facts.figures:
        return True  # a source states it: "five years on the wards", "charge nurse for two years"
    employers = sorted(facts.employers_in(clause))
    if not employers and _RELATIVE_PLACE.match(clause):
        # "I began at Calder Diagnostics, where I spent over five years": the sentence's employer
        employers = sorted(facts.employers_in(sentence))
    allowed: set[float] = set()
    for employer in employers:
        allowed |= facts.durations.get(employer, set())
    longest = max(allowed, default=0.0)
    if not employers or len(employers) > 1 or years > longest + 1:
        # no employer, or several, or longer than the stay named ("thirteen years, starting at
        # Brouwer in 2013"): the career's totals too
        allowed |= facts.durations.get("", set())
    if not employers and (not facts.employers_in(sentence) or _THIS_ROLE.search(clause)):
        # "over five years in this role": no employer named in the sentence, any job's span
        allowed |= {a for spans in facts.durations.values() for a in spans}
    if figure.plus:
        return any(a >= years for a in allowed) or _stated(figure, facts)
    rough = _ROUGHLY.search(before)
    slack = 1.0 if rough else (0.5 if figure.unit == "month" else 0.0)
    low, high = years - slack, years + slack
    if rough and re.match(r"(?i)(?:over|more than|just over)\b", rough.group(1)):
        low = years  # "over five years": five or more
    elif rough and re.match(r"(?i)(?:almost|nearly|close to|just under)\b", rough.group(1)):
        high = years  # "almost three years": a little under three
    if any(low - 1e-9 <= a <= high + 1e-9 for a in allowed):
        return True
    return not employers and _stated(figure, facts)


_THIS_ROLE = re.compile(r"\b(?:this|my\s+current|current|present|my)\s+(?:role|job|position|post)\b", re.I)
_RELATIVE_PLACE = re.compile(r"^\s*(?:where|there|which)\b", re.IGNORECASE)
_LATER = re.compile(r"^\s+(?:later|after|afterwards|on(?=\s*[,.;]|\s*$)|earlier|before)\b", re.IGNORECASE)
_ANOTHER = re.compile(r"\b(?:another|a\s+further|further)\s+$", re.IGNORECASE)
_LAST = re.compile(r"\b(?:the\s+)?(?:last|past|first|next)\s+$", re.IGNORECASE)
# "three days a week": a working pattern (the listing's terms), not a count of the person's
_RATE = re.compile(r"^\s+(?:a|per|each|every)\s+(?:week|month|fortnight)\b", re.IGNORECASE)
# "the 20 hours a week you mention": hours of a working pattern, the listing's terms as well
_HOURS = re.compile(r"^\s+hours?\s+(?:a|per|each|every)\s+(?:day|week|month|fortnight)\b", re.I)


def _interval(figure: Figure, clause: str, facts: Facts) -> bool:
    """ "Two years later", "another six years": the time between two years the profile states
    (joined in 2020, led the move in 2022; licensed in 2015, stayed until 2021)."""
    after = clause[figure.start + len(figure.text) :]
    if figure.unit != "year" or not (_LATER.match(after) or _ANOTHER.search(clause[: figure.start])):
        return False
    years = sorted({v for v, unit in facts.profile_figures if unit == "" and 1950 <= v <= 2100})
    return any(abs((b - a) - figure.value) < 1e-9 for i, a in enumerate(years) for b in years[i + 1 :])


_CHUNK_END = re.compile(r"[^\s,;:()\[\]]*")


def _listing_term(figure: Figure, clause: str, facts: Facts) -> bool:
    """A figure inside a term the listing writes ("4-on/4-off", "24/7", "9-to-5"): the listing's
    words, not a figure of the person's."""
    start = figure.start
    while start > 0 and not clause[start - 1].isspace() and clause[start - 1] not in ",;:()[]":
        start -= 1
    end = _CHUNK_END.match(clause, figure.start + len(figure.text))
    chunk = clause[start : end.end() if end else figure.start + len(figure.text)].rstrip(".!?")
    joined = chunk != figure.text and any(c in chunk for c in "-/")
    return joined and contains(facts.listing_text, fold(chunk))


# "from under 60% to over 90%" for 58% to 91%, "over 200 models" for 220: a bound on a source's figure
_BOUND = re.compile(
    r"\b(?:(?P<above>over|more than|above|just over|upwards of)|(?P<below>under|less than|below|"
    r"just under|nearly|almost|close to))\s+$",
    re.IGNORECASE,
)


_CURRENCY_END = re.compile(r"(?:[€$£¥₦₹]|[A-Z]{1,3}\$|eur|usd|gbp)\s*$", re.I)
_ABOUT = re.compile(r"\b(?:about|around|roughly|approximately|some|circa)\s+$", re.I)
_COMBINED = re.compile(r"\b(?:combined|in all|in total|altogether|all told|between them)\b", re.I)


def _combined(figure: Figure, clause: str, facts: Facts) -> bool:
    """A total of two of the profile's figures, said as one ("more than 300 assessments ...
    combined" for 180 and 140)."""
    if not _COMBINED.search(clause):
        return False
    values = sorted(v for v, unit in facts.profile_figures if unit == figure.unit and v < figure.value * 1.25)
    sums = {(a + b, figure.unit) for i, a in enumerate(values) for b in values[i + 1 :]}
    return any(same(s, figure.value) for s, _ in sums) or _bounds(figure, clause[: figure.start], sums)


def _bounds(figure: Figure, before: str, known: set[tuple[float, str]]) -> bool:
    """A figure said as a bound ("over 200", "under 60%") on a figure of the sources within a
    quarter of it, on the side the bound says."""
    stripped = _CURRENCY_END.sub("", before)  # "over S$": the bound is before the currency
    match = _BOUND.search(stripped)
    if figure.plus and figure.value > 0:  # "a €2bn+ portfolio" for €2.1bn: at least
        return any(unit == figure.unit and figure.value <= v <= figure.value * 1.25 for v, unit in known)
    amount = bool(
        re.search(r"[€$£¥₦₹]|thousand|million|billion|bn\b|\d\s?[km]\b", f"{before[-4:]}{figure.text}", re.I)
    )
    if amount and _ABOUT.search(stripped) and figure.value > 0:  # "about US$2 million" for US$2.1m
        return any(unit == figure.unit and abs(v - figure.value) <= 0.1 * figure.value for v, unit in known)
    if match is None or figure.value <= 0:
        return False
    for value, unit in known:
        if unit != figure.unit:
            continue
        if match.group("above") and figure.value < value <= figure.value * 1.25:
            return True
        if match.group("below") and figure.value * 0.8 <= value < figure.value:
            return True
    return False


_NAMED = re.compile(r"([A-Z][\w]*)[\s-]+$")


def _named_number(figure: Figure, clause: str, facts: Facts) -> bool:
    """A number that is part of a name the sources write ("Part 66" for Part-66, "Term 1, 2027"
    beside the listing's role, "Level 3"): the name's, not a figure claimed."""
    word = _NAMED.search(clause[: figure.start])
    number = re.match(r"[\d.,]+", figure.text)
    return (
        word is not None
        and number is not None
        and facts.in_sources(fold(f"{word.group(1)} {number.group()}"))  # "King Air 350 years"
    )


_POST = re.compile(r"\b(?:role|position|post|opening|vacancy|posting|applying|apply)\b", re.IGNORECASE)


# The words of a job's terms, beside which the listing's figure is said back ("30% travel")
_TERMS = frozenset(
    {"travel", "travelling", "traveling", "time", "remote", "office", "hours", "shift", "shifts", "week",
     "weeks", "weekend", "weekends", "call", "rota", "days", "nights", "onsite", "site"}
)  # fmt: skip


def _listing_context(figure: Figure, clause: str, facts: Facts) -> bool:
    """A figure of the listing said with a word the listing writes beside it ("30% travel" for
    "travel to suppliers about 30% of the time", "the 40-hour week"): the listing's term."""
    key = fold(figure.text)
    listing = facts.listing_text.split()
    near = {fold(w) for w in clause[max(0, figure.start - 30) : figure.start + len(figure.text) + 30].split()}
    near &= _TERMS
    size = len(key.split())
    for i in range(len(listing) - size + 1):
        if " ".join(listing[i : i + size]) == key and near & set(listing[max(0, i - 6) : i + size + 6]):
            return True
    return False


def _no_claim(figure: Figure, clause: str, facts: Facts) -> bool:
    """Whether a figure claims nothing to check: 0 or 1, a count of the letter's own list, a term,
    name or post of the sources, or a bound on a figure of theirs."""
    if figure.unit in {"", "%"} and figure.value in (0.0, 1.0):
        return True
    if figure.value <= 6 and (
        _ITEMS.match(clause[figure.start + len(figure.text) :])
        or re.search(r"\b(?:all|both|each\s+of\s+the|all\s+of\s+the)\s+$", clause[: figure.start], re.I)
    ):
        return True  # "three things from your posting", "I have all four": the letter's own list
    # a term or name of the sources, or a share in words ("two in five" for 40%)
    if any(f(figure, clause, facts) for f in (_listing_term, _named_number, _share, _points, _combined)):
        return True
    year_of_post = 2000 <= figure.value <= 2100 and names_company(clause, facts.hiring_company)
    if figure.unit == "" and (_POST.search(clause) or year_of_post) and _stated(figure, facts):
        return True  # "the ongoing role for 2027": the listing's own figure, of the post
    if _listing_context(figure, clause, facts):
        return True  # "I'm fine with 30% travel": the listing's term, said back
    own = facts.profile_figures if claims(clause, figure.start) else facts.figures
    return figure.unit not in {"year", "month"} and _bounds(figure, clause[: figure.start], own)


_ELIDED_AFTER = re.compile(r"^\s+(?:or\s+so\b|(?:in|at|as|of|with|on|doing|working)\s)", re.I)


def _elided_years(figure: Figure, clause: str, sentence: str) -> bool:
    """A bare number that is a span of years the sentence has already named ("more than twelve
    years in marketing and nearly ten in brand roles", "for the last eight or so")."""
    if figure.unit or not re.search(r"\byears?\b", sentence, re.I):
        return False
    after, before = clause[figure.start + len(figure.text) :], clause[: figure.start]
    approximate = bool(_ROUGHLY.search(before) or _LAST.search(before) or re.match(r"\s+or\s+so\b", after))
    return approximate and bool(_ELIDED_AFTER.match(after)) and figure.value < 60


# "two in five came from Spanish-speaking families" for 40%: a share in words
_SHARE_BEFORE = re.compile(r"\b([\w-]+)\s+(?:in|out\s+of)\s+$", re.I)
_SHARE_AFTER = re.compile(r"^\s+(?:in|out\s+of)\s+([\w-]+)\b", re.I)


def _share(figure: Figure, clause: str, facts: Facts) -> bool:
    """A figure of a share said in words ("two in five", "1 in 4") whose percentage a source
    states, within three points."""
    before = _SHARE_BEFORE.search(clause[: figure.start])
    after = _SHARE_AFTER.match(clause[figure.start + len(figure.text) :])
    other = number_value(before[1] if before else after[1] if after else "")
    if other is None or figure.unit:
        return False
    part, whole = (other, figure.value) if before else (figure.value, other)
    if not 0 < part < whole:
        return False
    share = 100 * part / whole
    return any(unit == "%" and abs(value - share) <= 3 for value, unit in facts.figures)


_RANGE = re.compile(r"\b((?:19|20)\d{2}) (?:to )?((?:19|20)\d{2})\b")
_POINTS = re.compile(r"^\s*(?:percentage\s+)?(?:points?|pts|pp)\b", re.I)


def _year_range(figure: Figure, facts: Facts) -> bool:
    """A duration a range of years the profile writes gives ("over two years" for "over
    2022-2023"): the years between or the years counted."""
    if figure.unit != "year":
        return False
    for match in _RANGE.finditer(facts.profile_text):
        a, b = int(match[1]), int(match[2])
        if 0 < b - a <= 40 and figure.value in {b - a, b - a + 1}:
            return True
    return False


def _points(figure: Figure, clause: str, facts: Facts) -> bool:
    """A gain or fall in points that two percentages of the sources give ("gained seven points"
    for 84% to 91%)."""
    if figure.unit or not _POINTS.match(clause[figure.start + len(figure.text) :]):
        return False
    shares = sorted({v for v, unit in facts.figures if unit == "%"})
    return any(same(b - a, figure.value) for i, a in enumerate(shares) for b in shares[i + 1 :])


def _own_span(figure: Figure, found: list[Figure], clause: str) -> str:
    """The part of a clause a duration speaks of: up to the durations before and after it ("over
    five years in this role, after nearly four years at Tanjong Foods": Tanjong is the second's)."""
    spans = [f for f in found if f.unit in {"year", "month"}]
    before = [f.start + len(f.text) for f in spans if f.start < figure.start]
    after = [f.start for f in spans if f.start > figure.start]
    return clause[max(before, default=0) : min(after, default=len(clause))]


def unstated(text: str, facts: Facts) -> list[str]:
    """The figures of a text that no source states or gives, as written."""
    bad: list[str] = []
    previous = ""
    for sentence in sentences(text):
        # a line wrapped mid-sentence ("... at Mkopo\nHub for five years"): read with the line before
        wrapped = f"{previous} {sentence}" if previous and previous.rstrip()[-1:] not in ".!?:" else ""
        previous = sentence
        for clause in clauses(sentence):
            found = figures(clause)
            for figure in found:
                if _no_claim(figure, clause, facts):
                    continue
                if figure.unit in {"year", "month"}:
                    span = _own_span(figure, found, clause)
                    ok = (
                        _year_range(figure, facts)
                        or _duration_ok(figure, span, clause[: figure.start], facts, sentence)
                        or _interval(figure, clause, facts)
                        or (bool(wrapped) and _duration_ok(figure, wrapped, clause[: figure.start], facts))
                    )
                elif _elided_years(figure, clause, sentence):  # "nearly ten in brand roles"
                    span = _own_span(figure, found, clause)
                    as_years = Figure(figure.value, "year", figure.text, figure.start)
                    ok = _duration_ok(as_years, span, clause[: figure.start], facts, sentence)
                elif (
                    figure.unit in {"day", "week"} and _RATE.match(clause[figure.start + len(figure.text) :])
                ) or _HOURS.match(clause[figure.start + len(figure.text) :]):
                    ok = _stated(figure, facts)
                elif claims(clause, figure.start):  # "I released 60 parts": the person's, so the profile's
                    ok = (
                        _stated(figure, facts, facts.profile_figures)
                        or _employer_span(figure, clause, facts)
                        # the listing's figure, in a wish or said of the listing's thing: "I'd like
                        # to help the 4,200 properties", "which matters with 90 other engineers"
                        or (bool(_WISH.search(clause) or _relative(clause)) and _stated(figure, facts))
                    )
                else:
                    ok = _stated(figure, facts) or _employer_span(figure, clause, facts)
                if not ok:
                    bad.append(figure.text)
    return list(dict.fromkeys(bad))


def check_numbers(text: str, facts: Facts) -> Check:
    """No figure that the profile and the listing do not state or give."""
    bad = unstated(text, facts)
    bad += [t for t in unsupported_teams(text, facts) if not any(b in t for b in bad)]
    return verdict("numbers", bad, lambda shown: f"states {shown}, in neither your profile nor the listing")
