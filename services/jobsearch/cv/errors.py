"""What can go wrong reading a CV; each message names the file and says what to do.

```
ConfigError (jetjobs)          `jobsearch` prints it and exits 2
└── CvError                    the CV cannot give a profile
    ├── UnsupportedFormat      not .pdf, .docx, .md or .txt
    ├── UnreadableCv           missing, damaged, encrypted, not the format its name says
    ├── ScannedCv              a PDF whose pages carry no text layer (an image of text)
    └── UnusableAnswer         the model's answer is not the JSON asked for (rules read it then)
```
"""

from __future__ import annotations

from jetjobs import ConfigError


class CvError(ConfigError):
    """The CV cannot give a profile."""


class UnsupportedFormat(CvError):
    """The file's extension is none of the formats read."""


class UnreadableCv(CvError):
    """The file is missing, damaged, encrypted or not what its extension says."""


class ScannedCv(CvError):
    """A PDF without text: its pages are images, which only OCR could read."""


class UnusableAnswer(CvError):
    """The model answered, but not with the JSON object asked for."""
