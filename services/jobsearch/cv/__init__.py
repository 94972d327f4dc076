"""A profile from a CV (`jobsearch init --from-cv FILE`): the text of a PDF, DOCX, Markdown or
text file, the person's facts read by the configured model or by rules, each one checked against
the CV and written with a `# check` comment for the person to confirm (docs/profile.md)."""

from jobsearch.cv.errors import CvError, ScannedCv, UnreadableCv, UnsupportedFormat, UnusableAnswer
from jobsearch.cv.extract import CvText, Line, read_cv
from jobsearch.cv.facts import CvFacts, Degree, Role, keep_stated
from jobsearch.cv.importer import CvImport, import_cv
from jobsearch.cv.write import CHECK, profile_text, write_new_profile

__all__ = [
    "CHECK",
    "CvError",
    "CvFacts",
    "CvImport",
    "CvText",
    "Degree",
    "Line",
    "Role",
    "ScannedCv",
    "UnreadableCv",
    "UnsupportedFormat",
    "UnusableAnswer",
    "import_cv",
    "keep_stated",
    "profile_text",
    "read_cv",
    "write_new_profile",
]
