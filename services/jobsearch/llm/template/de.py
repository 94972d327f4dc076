"""The offline template in German, as a German application letter is written: "Sehr geehrte Damen
und Herren," with the text starting in lower case, "Sie" throughout, and "Mit freundlichen
Grüßen" without a comma."""

from __future__ import annotations

from jobsearch.llm.template.prose import sentence
from jobsearch.llm.template.wording import Note

# Words the draft checks read in English ("as", "was", "am" before a job title; "at", "for", "with"
# before an organisation) are avoided here: "was" and "am" are German words too.


def _join(items: list[str] | tuple[str, ...]) -> str:
    """The items as a list in a sentence: "A", "A und B", "A, B und C" (no serial comma)."""
    if len(items) <= 2:
        return " und ".join(items)
    return ", ".join(items[:-1]) + f" und {items[-1]}"


def greeting(company: str) -> str:
    """The formal salutation: a letter without a named contact person."""
    return "Sehr geehrte Damen und Herren,"


def opening(role: str | None, company: str) -> str:
    """Which role the letter is for; lower case after the salutation's comma."""
    what = f"die Stelle als {role}" if role else "die ausgeschriebene Stelle"
    where = f" bei {company}" if company else ""
    return sentence(f"mit großem Interesse bewerbe ich mich um {what}{where}")


def _period(start: int | None, end: int | None) -> str:
    if start is None:
        return ""
    if end is None:
        return f" (seit {start})"
    return f" ({start})" if end == start else f" ({start} bis {end})"


def role_lead(index: int, title: str, employer: str, start: int | None, end: int | None) -> str:
    """The lead of a role's paragraph: "Derzeit arbeite ich als <title> bei <employer> (seit 2020)"."""
    period = _period(start, end)
    if end is None:
        lead = "Derzeit arbeite ich" if index == 0 else "Daneben arbeite ich"
        return f"{lead} als {title} bei {employer}{period}"
    lead = "Zuletzt war ich" if index == 0 else "Davor war ich"
    return f"{lead} als {title} bei {employer} tätig{period}"


def requirements(required: list[str]) -> str:
    """The posting's requirements that the person meets: "Die Ausschreibung verlangt Go und
    PostgreSQL; mit beiden arbeite ich in meinem Berufsalltag."."""
    if len(required) == 1:
        return f"Die Ausschreibung verlangt {required[0]}; damit arbeite ich in meinem Berufsalltag."
    each = "beiden" if len(required) == 2 else "all diesen"
    return f"Die Ausschreibung verlangt {_join(required)}; mit {each} arbeite ich in meinem Berufsalltag."


def gaps(unmet: list[str]) -> str:
    """What the posting requires that the person has not used, said plainly."""
    them = "Damit" if len(unmet) == 1 else "Mit diesen"
    return f"Sie nennt außerdem {_join(unmet)}. {them} habe ich noch nicht gearbeitet."


def skills_matched(skills: list[str]) -> str:
    """The posting's skills that the person has."""
    return (
        f"Die Ausschreibung nennt {_join(skills)}; damit arbeite ich in meinem Berufsalltag. Wo sie "
        "etwas verlangt, das ich noch nicht gemacht habe, sage ich das offen und arbeite mich schnell ein."
    )


def skills_general(skills: list[str]) -> str:
    """The person's main skills."""
    field = "im Bereich" if len(skills) == 1 else "in den Bereichen"
    return (
        f"Meine Stärken liegen {field} {_join(skills)}. Nicht jedes Werkzeug aus der Ausschreibung "
        "habe ich bereits eingesetzt; wo das so ist, sage ich es offen und arbeite mich schnell ein."
    )


def closing(company: str) -> str:
    """The wish for a conversation."""
    where = f" {company}" if company else " Sie"
    return (
        f"Ich freue mich auf ein persönliches Gespräch darüber, wie ich{where} unterstützen kann. "
        "Vielen Dank für Ihre Zeit."
    )


def sign_off(signature: str) -> str:
    """The complimentary close, "Mit freundlichen Grüßen" (no comma in German), and the signature."""
    return f"Mit freundlichen Grüßen\n{signature}"


def note(note: Note) -> str:
    """The note: "Hallo, ich bin Jane, Senior Engineer mit Erfahrung in Go. Ich habe die Stelle als ..."."""
    intro = ""
    if note.first:
        intro = f"Hallo, ich bin {note.first}"
        if note.current:
            intro += f", {note.current}"
            intro += f" mit Erfahrung in {_join(note.skills)}" if note.skills else ""
        elif note.skills:
            intro += f" und arbeite mit {_join(note.skills)}"
        intro = sentence(intro)
    if note.role:
        seen = f"die Stelle als {note.role}"
    else:
        seen = "die ausgeschriebene Stelle" if note.company else "Ihre Stellenausschreibung"
    seen += f" bei {note.company}" if note.company else ""
    ask = f"habe {seen} gesehen und würde mich gern mit Ihnen vernetzen"
    ask += ", um mehr über das Team zu erfahren" if note.team else ""
    text = f"{intro} {sentence('Ich ' + ask)}" if intro else f"Hallo, {sentence('ich ' + ask)}"
    return text + (" Vielen Dank!" if note.thanks else "")
