"""Whether a word is a common word of a language, not a name: wordfreq's frequencies.

A capitalised word that opens a sentence, heads a line or follows a colon says nothing by its
capital letter; it is read as a word when it is common (Zipf frequency 2.5 or more, about once in
three million words) in English or in one of the letter's languages: "Quick", "Honest",
"Hablamos", "Pozdrawiam" are words, "Flutterwave", "Initech", "Elisava" are not. wordfreq knows
40 languages (not Welsh or Swahili: their greetings are in `vocabulary.GREETINGS`).
"""

from __future__ import annotations

import functools

from wordfreq import available_languages, zipf_frequency

COMMON_ZIPF = 2.5
# Language names as a profile writes them, to wordfreq's codes.
_CODES = {
    "english": "en", "german": "de", "french": "fr", "spanish": "es", "italian": "it", "portuguese": "pt",
    "dutch": "nl", "polish": "pl", "czech": "cs", "slovak": "sk", "hungarian": "hu", "romanian": "ro",
    "bulgarian": "bg", "greek": "el", "turkish": "tr", "russian": "ru", "ukrainian": "uk", "swedish": "sv",
    "norwegian": "nb", "danish": "da", "finnish": "fi", "icelandic": "is", "catalan": "ca",
    "lithuanian": "lt", "latvian": "lv", "slovenian": "sl", "serbian": "sh", "croatian": "sh",
    "bosnian": "sh", "macedonian": "mk", "arabic": "ar", "hebrew": "he", "persian": "fa", "farsi": "fa",
    "hindi": "hi", "urdu": "ur", "bengali": "bn", "tamil": "ta", "indonesian": "id", "malay": "ms",
    "filipino": "fil", "tagalog": "fil", "vietnamese": "vi", "chinese": "zh", "mandarin": "zh",
    "japanese": "ja", "korean": "ko",
}  # fmt: skip


# Languages whose words wordfreq reads with a tokenizer of their own (MeCab, jieba), which does
# not install here; a letter in them is not written in Latin script, where names stand out.
_OWN_TOKENIZER = frozenset({"ja", "zh", "ko"})


@functools.cache
def _known_codes() -> frozenset[str]:
    return frozenset(available_languages(wordlist="best")) - _OWN_TOKENIZER


def language_codes(language: str, named: list[str]) -> tuple[str, ...]:
    """The wordfreq languages of a letter: English, its `writing.language`, and the languages the
    profile names ("I speak English, Tamil and German")."""
    codes = ["en", language.lower().split("-")[0], *(_CODES[n] for n in named if n in _CODES)]
    return tuple(dict.fromkeys(c for c in codes if c in _known_codes()))


@functools.lru_cache(maxsize=65536)
def is_common(word: str, languages: tuple[str, ...]) -> bool:
    """Whether a word is common in any of the languages (never raises: an unreadable word is not)."""
    for code in languages:
        try:
            if zipf_frequency(word, code) >= COMMON_ZIPF:
                return True
        except Exception:
            continue
    return False
