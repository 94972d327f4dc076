"""`jobsearch init --from-cv`: a CV's text, its facts (by the model, else by rules), checked
against the CV, as a profile's text.

```python
result = import_cv(Path("cv.pdf"))      # CvError: scanned, unreadable, unsupported
write_new_profile(Path("me.toml"), result.text)
```
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import anyio
import msgspec

from jobsearch.cv.errors import UnusableAnswer
from jobsearch.cv.extract import CvText, read_cv
from jobsearch.cv.facts import CvFacts, keep_stated
from jobsearch.cv.llm_facts import model_settings, read_facts_with_model
from jobsearch.cv.rules import read_facts
from jobsearch.cv.write import profile_text
from jobsearch.llm import AllProvidersFailed
from jobsearch.profile import parse_profile


class CvImport(msgspec.Struct, frozen=True, kw_only=True):
    """What `import_cv` read and wrote, and what to tell the person."""

    cv: CvText
    facts: CvFacts  # as checked: only values the CV states
    text: str  # the profile's TOML text
    notes: list[str]  # one line each: how the CV was read, what was filled in, what was dropped


def import_cv(path: Path, env: Mapping[str, str] | None = None) -> CvImport:
    """Read the CV at `path` into a profile's text; a configured model reads it, else rules.

    A model that fails (down, out of quota, an answer that is no JSON) leaves the CV to the rules,
    and a note says so.

    Raises:
        CvError: the CV is of an unknown format, unreadable, or a scanned PDF without text.
        LlmConfigError: `LLM_PROVIDER` names a provider that is not set up (its key, its URL).
    """
    cv = read_cv(path)
    pages = f", {cv.pages} page(s)" if cv.pages else ""
    notes = [f"read {path} with {cv.reader}{pages}: {len(cv.text):,} characters"]
    settings = model_settings(env)
    facts: CvFacts | None = None
    if settings is None:
        notes.append("facts by rules (no model configured: LLM_PROVIDER is unset or offline)")
    else:
        try:
            facts = anyio.run(read_facts_with_model, cv, settings)
        except (AllProvidersFailed, UnusableAnswer) as exc:
            notes.append(f"the model could not read the CV ({exc}): facts by rules instead")
        else:
            notes.append(f"facts by {facts.how}")
    checked = keep_stated(facts or read_facts(cv), cv.text)
    notes.append(_filled(checked))
    if checked.dropped:
        notes.append(
            f"dropped {len(checked.dropped)} value(s) the CV does not state: " + "; ".join(checked.dropped)
        )
    if checked.unread:
        notes.append(f"{len(checked.unread)} line(s) not read (left as comments in the profile)")
    text = profile_text(checked, cv)
    if checked.name:
        parse_profile(text, str(path))  # what we write must load; a failure here is our bug
    else:
        notes.append("no name found in the CV: write yours into `[person] name` before a run")
    return CvImport(cv=cv, facts=checked, text=text, notes=notes)


def _filled(facts: CvFacts) -> str:
    found = [key for key in ("name", "email", "phone", "summary") if getattr(facts, key)]
    found += [f"{len(facts.links)} link(s)"] if facts.links else []
    found += [
        f"{len(facts.experience)} role(s)",
        f"{len(facts.education)} degree(s)",
        f"{len(facts.skills)} skill(s)",
    ]
    return "filled in: " + ", ".join(found)
