"""Whether a browser would show an element's text, judged from the markup alone.

A posting's HTML can carry text that no reader sees (`display:none`, white on white, a zero font
size) and that a program reading the markup takes for part of the posting: the usual carrier of
instructions aimed at a language model. `look` works out, element by element, what a reader gets:
from attributes (`hidden`, `aria-hidden="true"`, a `<dialog>` not open) and the inline `style`
attribute, inherited as CSS inherits (`visibility`, `color` and `font-size` pass to the children,
which may set them back; `display:none` and `opacity:0` take the children with them).

What it does not do, and why: no stylesheet is applied (a board's description is a fragment: its
`<style>` elements are dropped as text, and class rules need the page that shows it) and no layout
is computed. Where the markup does not say enough (a background image, a colour it does not know,
`calc()`), the text is judged visible: the judgement errs towards keeping what a reader sees. No
library fits: `tinycss2` would parse the declarations but not decide what is seen, and a browser
engine is too heavy for a fetch worker; inline declarations are simple enough to read here.
"""

from __future__ import annotations

import colorsys
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

Rgba = tuple[float, float, float, float]  # channels 0-255, alpha 0-1

WHITE: Rgba = (255.0, 255.0, 255.0, 1.0)
BLACK: Rgba = (0.0, 0.0, 0.0, 1.0)
_CLEAR: Rgba = (0.0, 0.0, 0.0, 0.0)
# Below this size a line of text is a row of dots, not something a person reads.
MIN_FONT_PX = 3.0
# Text against its background under this WCAG contrast ratio cannot be told from it (1 is none;
# whitesmoke on white is 1.09, #eee on white 1.16, the faintest grey text a designer uses ~1.5).
MIN_CONTRAST = 1.1
# At most this opacity nothing of the element shows.
MAX_INVISIBLE_OPACITY = 0.05
# A box moved this far off the page (`left:-9999px`, `text-indent:-9999px`) is never on screen.
OFF_PAGE_PX = -999.0
_ROOT_FONT_PX = 16.0

# Colour names: the basic sixteen and the near-whites (the ones white-on-white text uses). A name
# not here is "unknown", and unknown colours are judged visible.
_NAMED: dict[str, Rgba] = {
    name: (float(int(code[0:2], 16)), float(int(code[2:4], 16)), float(int(code[4:6], 16)), 1.0)
    for name, code in {
        "white": "ffffff", "black": "000000", "silver": "c0c0c0", "gray": "808080", "grey": "808080",
        "red": "ff0000", "maroon": "800000", "yellow": "ffff00", "olive": "808000", "lime": "00ff00",
        "green": "008000", "aqua": "00ffff", "teal": "008080", "blue": "0000ff", "navy": "000080",
        "fuchsia": "ff00ff", "purple": "800080", "orange": "ffa500", "snow": "fffafa",
        "ivory": "fffff0", "whitesmoke": "f5f5f5", "ghostwhite": "f8f8ff", "azure": "f0ffff",
        "mintcream": "f5fffa", "seashell": "fff5ee", "floralwhite": "fffaf0", "aliceblue": "f0f8ff",
        "honeydew": "f0fff0", "lavenderblush": "fff0f5", "linen": "faf0e6", "oldlace": "fdf5e6",
        "lightyellow": "ffffe0", "beige": "f5f5dc", "cornsilk": "fff8dc", "gainsboro": "dcdcdc",
        "lightgray": "d3d3d3", "lightgrey": "d3d3d3", "darkgray": "a9a9a9", "darkgrey": "a9a9a9",
        "dimgray": "696969", "dimgrey": "696969",
    }.items()
}  # fmt: skip
_FONT_KEYWORDS = {
    "xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0, "large": 18.0,
    "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0, "initial": 16.0, "revert": 16.0,
}  # fmt: skip
_FONT_RELATIVE = {"smaller": 1 / 1.2, "larger": 1.2}
_FONT_SCALE = {"em": 1.0, "%": 0.01, "ex": 0.5, "ch": 0.5}  # of the parent's font size
# Words a `background` shorthand may hold besides its colour.
_BACKGROUND_WORDS = frozenset(
    {
        "none", "repeat", "repeat-x", "repeat-y", "no-repeat", "space", "round", "scroll", "fixed",
        "local", "center", "top", "bottom", "left", "right", "border-box", "padding-box",
        "content-box", "text", "auto", "cover", "contain", "inherit", "initial", "unset", "revert",
    }
)  # fmt: skip
# The declarations `Look` follows past `_gone`: an element declaring one owns the hiding it causes.
_LOOK_PROPERTIES = ("color", "background", "background-color", "visibility", "font-size", "font")
_LEGACY_BACKGROUND = frozenset({"body", "table", "tr", "td", "th"})  # the `bgcolor` attribute

_CSS_COMMENT = re.compile(r"/\*.*?(\*/|$)", re.DOTALL)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", re.DOTALL)
_IMPORTANT = re.compile(r"!\s*important\s*$")
_LENGTH = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([a-z%]*)")
_BACKGROUND_TOKEN = re.compile(r"[a-z-]+\([^)]*\)|[^\s(]+")
_SCALED_AWAY = re.compile(r"scale[xy3d]*\(\s*[+-]?0*\.?0+\s*[,)]")
_PX_PER = {
    "px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4,
    "q": 96 / 101.6, "rem": _ROOT_FONT_PX, "vw": 12.8, "vh": 8.0, "vmin": 8.0, "vmax": 12.8,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Look:
    """What a reader gets of an element's text: its colour, on what, how large, whether at all.

    `color` and `background` are None where the markup does not say enough to judge (an unknown
    colour, a background image): such text is judged visible. The root is black on a white page,
    the default every board's page has.
    """

    color: Rgba | None = BLACK
    background: Rgba | None = WHITE  # the nearest painted background, opaque
    font_px: float = _ROOT_FONT_PX
    visible: bool = True  # CSS `visibility`
    gone: bool = False  # not rendered, with all it holds (display:none, hidden, opacity:0...)
    hidden: bool = False  # text with this look is hidden from a reader (`gone` or not seen)
    owner: int = 0  # the element whose markup hides this text (its serial number); 0: seen


# Attributes that can hide an element or change its look.
_LOOK_ATTRIBUTES = frozenset({"style", "hidden", "aria-hidden", "color", "bgcolor", "open"})


def look(parent: Look, tag: str, attrs: Mapping[str, str | None], serial: int) -> Look:
    """The look of an element's own text, inside `parent`; `serial` names it as a hiding owner.

    Hidden text is owned by the element whose markup hides it: a child that declares nothing of
    its own is part of its parent's hidden part, not one more.
    """
    if parent.gone:
        return parent  # nothing inside a removed element comes back
    if tag != "dialog" and _LOOK_ATTRIBUTES.isdisjoint(attrs):
        return parent  # the common case: an element that changes nothing of its parent's look
    relevant = tuple((name, value) for name, value in attrs.items() if name in _LOOK_ATTRIBUTES)
    child, declares = _derived(parent, tag, relevant)
    if not child.hidden:
        return child
    return replace(child, owner=serial if declares or not parent.hidden else parent.owner)


@functools.lru_cache(maxsize=1024)  # a description repeats a few styles on every element
def _derived(parent: Look, tag: str, relevant: tuple[tuple[str, str | None], ...]) -> tuple[Look, bool]:
    """The child's look (no owner yet), and whether its own markup sets what hides it."""
    attrs = dict(relevant)
    style = declarations(attrs.get("style") or "")
    if _gone(tag, attrs, style):
        return replace(parent, gone=True, hidden=True, owner=0), True
    color = _colour_of(tag, attrs, style, parent.color)
    background = _background_of(tag, attrs, style, parent.background)
    font_px = _font_px(style, parent.font_px)
    visible = _visibility(style.get("visibility"), parent.visible)
    hidden = not visible or font_px < MIN_FONT_PX or _camouflaged(color, background)
    declares = any(name in style for name in _LOOK_PROPERTIES) or bool(
        attrs.get("color") or attrs.get("bgcolor")
    )
    return Look(color, background, font_px, visible, gone=False, hidden=hidden), declares


def _camouflaged(color: Rgba | None, background: Rgba | None) -> bool:
    """Text of `color` that cannot be told from the `background` it is drawn on."""
    if color is None:
        return False
    if color[3] <= MAX_INVISIBLE_OPACITY:
        return True
    if background is None:
        return False
    return _contrast(_over(color, background), background) < MIN_CONTRAST


def declarations(style: str) -> dict[str, str]:
    """An inline `style` attribute's declarations, lower-cased, later ones (and `!important`) winning.

    CSS escapes are decoded first (`d\\isplay:none` is `display:none`); the order of the dict is
    the order the declarations take effect, so of two that set one thing the last one wins.
    """
    if not style:
        return {}
    found: dict[str, str] = {}
    important: set[str] = set()
    for item in _CSS_COMMENT.sub(" ", style).split(";"):
        name, colon, value = item.partition(":")
        if not colon:
            continue
        name = _unescape(name).strip().lower()
        value = _unescape(value).strip().lower()
        mark = _IMPORTANT.search(value)
        if mark:
            value = value[: mark.start()].rstrip()
        if not name or not value or (name in important and not mark):
            continue
        found.pop(name, None)
        found[name] = " ".join(value.split())
        if mark:
            important.add(name)
    return found


def colour(value: str) -> Rgba | None:
    """A CSS colour (`#fff`, `#ffffff80`, `rgb()`, `hsl()`, a name, `transparent`); None if unknown."""
    value = value.strip().lower()
    if value == "transparent":
        return _CLEAR
    if value.startswith("#"):
        return _hex(value[1:])
    head, paren, rest = value.partition("(")
    if paren and rest.endswith(")"):
        return _functional(head, [p for p in re.split(r"[\s,/]+", rest[:-1].strip()) if p])
    return _NAMED.get(value)


def _functional(name: str, parts: list[str]) -> Rgba | None:
    """`rgb(...)`/`rgba(...)` or `hsl(...)`/`hsla(...)`, commas or spaces, alpha after `/` or not."""
    if len(parts) not in (3, 4) or name not in ("rgb", "rgba", "hsl", "hsla"):
        return None
    try:
        alpha = _fraction(parts[3]) if len(parts) == 4 else 1.0
        if name.startswith("rgb"):
            r, g, b = (float(p[:-1]) * 2.55 if p.endswith("%") else float(p) for p in parts[:3])
            return (_clamp(r, 255), _clamp(g, 255), _clamp(b, 255), alpha)
        hue = float(parts[0].removesuffix("deg")) / 360 % 1
        sat, light = (_fraction(p) for p in parts[1:3])
    except ValueError:
        return None
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return (r * 255, g * 255, b * 255, alpha)


def _gone(tag: str, attrs: Mapping[str, str | None], style: Mapping[str, str]) -> bool:
    """Whether the element is not rendered at all, or is but never where a reader could see it."""
    display = style.get("display")
    if display == "none" or style.get("content-visibility") == "hidden":
        return True
    if display is None and ("hidden" in attrs or (tag == "dialog" and "open" not in attrs)):
        return True  # the `hidden` attribute is only a default `display:none`, which CSS overrides
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True  # the author's own word that it is not part of the content
    opacity = style.get("opacity")
    if opacity is not None and _opacity(opacity) <= MAX_INVISIBLE_OPACITY:
        return True
    return _clipped(style) or _off_page(style) or bool(_SCALED_AWAY.search(style.get("transform", "")))


def _clipped(style: Mapping[str, str]) -> bool:
    """A box of (at most) one pixel that hides what overflows it, or clipped to nothing."""
    overflow = " ".join(style.get(name, "") for name in ("overflow", "overflow-x", "overflow-y"))
    if "hidden" in overflow or "clip" in overflow:
        for name in ("height", "max-height", "width", "max-width"):
            size = _px(style.get(name, ""))
            if size is not None and size <= 1:
                return True
    clip = style.get("clip", "")
    if clip.startswith("rect("):
        edges = [_px(p) for p in re.split(r"[\s,]+", clip[5:].rstrip(")").strip()) if p]
        if len(edges) == 4 and all(e is not None and e <= 1 for e in edges):
            return True
    return False


def _off_page(style: Mapping[str, str]) -> bool:
    indent = _px(style.get("text-indent", ""))
    if indent is not None and indent <= OFF_PAGE_PX:
        return True
    if style.get("position") not in ("absolute", "fixed"):
        return False
    for side in ("left", "top", "right", "bottom"):
        offset = _px(style.get(side, ""))
        if offset is not None and offset <= OFF_PAGE_PX:
            return True
    return False


def _colour_of(
    tag: str, attrs: Mapping[str, str | None], style: Mapping[str, str], inherited: Rgba | None
) -> Rgba | None:
    value = style.get("color")
    if value is None:
        legacy = attrs.get("color") if tag == "font" else None
        return _legacy_colour(legacy) if legacy else inherited
    if value in ("inherit", "currentcolor", "unset"):
        return inherited
    if value in ("initial", "revert", "canvastext"):
        return BLACK
    return colour(value)


def _background_of(
    tag: str, attrs: Mapping[str, str | None], style: Mapping[str, str], behind: Rgba | None
) -> Rgba | None:
    """The element's painted background: its own over what shows behind it, None if unknown."""
    # Of `background` and `background-color`, the one that took effect (declared last).
    backgrounds = [v for k, v in style.items() if k in ("background", "background-color")]
    value = backgrounds[-1] if backgrounds else None
    own: Rgba | None
    if value is None:
        legacy = attrs.get("bgcolor") if tag in _LEGACY_BACKGROUND else None
        own = _legacy_colour(legacy) if legacy else _CLEAR
        if own is None:
            return None
    elif any(image in value for image in ("url(", "gradient(", "image-set(", "image(", "var(")):
        return None  # an image or a variable: what the text is drawn on is not known
    else:
        own = _CLEAR
        for token in _BACKGROUND_TOKEN.findall(value):
            if token[0] in "+-.0123456789" or "/" in token or token in _BACKGROUND_WORDS:
                continue  # a position, a size, a repeat or attachment keyword
            found = colour(token)
            if found is None:
                return None  # a colour name or function we do not know
            own = found
            break
    if own[3] >= 1:
        return own
    return None if behind is None else _over(own, behind)


def _font_px(style: Mapping[str, str], parent_px: float) -> float:
    value = style.get("font-size")
    if value is None and "font" in style:
        # The shorthand: `[style] [weight] size[/line-height] family` (`font: 0/0 a` hides text).
        sizes = (_font_size(token.split("/")[0], parent_px) for token in style["font"].split())
        return next((size for size in sizes if size is not None), parent_px)
    if value is None or value in ("inherit", "unset"):
        return parent_px
    size = _font_size(value, parent_px)
    return _ROOT_FONT_PX if size is None else size  # one this code cannot read (`calc()`): readable


def _font_size(value: str, parent_px: float) -> float | None:
    """A `font-size` value in pixels; None if it is not one (or not one this code reads)."""
    if value in _FONT_KEYWORDS:
        return _FONT_KEYWORDS[value]
    if value in _FONT_RELATIVE:
        return parent_px * _FONT_RELATIVE[value]
    match = _LENGTH.fullmatch(value)
    if not match:
        return None
    number, unit = float(match[1]), match[2]
    if unit in _FONT_SCALE:
        return max(0.0, number * _FONT_SCALE[unit] * parent_px)
    if unit in _PX_PER:
        return max(0.0, number * _PX_PER[unit])
    return 0.0 if not unit and number == 0 else None  # a bare number other than 0 is not a size


def _visibility(value: str | None, inherited: bool) -> bool:
    if value in ("hidden", "collapse"):
        return False
    if value in ("visible", "initial", "revert"):
        return True
    return inherited


def _px(value: str) -> float | None:
    """A length in pixels (em taken as 16 px); None for no length, or a percentage other than 0."""
    match = _LENGTH.fullmatch(value.strip())
    if not match:
        return None
    number, unit = float(match[1]), match[2]
    if number == 0:
        return 0.0
    if unit == "em":
        return number * _ROOT_FONT_PX
    return number * _PX_PER[unit] if unit in _PX_PER else None


def _opacity(value: str) -> float:
    try:
        return _fraction(value)
    except ValueError:
        return 1.0  # not a number: CSS ignores it


def _fraction(value: str) -> float:
    """A number or percentage as a fraction in [0, 1]."""
    number = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    return _clamp(number, 1)


def _clamp(value: float, top: float) -> float:
    return 0.0 if math.isnan(value) else min(max(value, 0.0), top)


def _hex(digits: str) -> Rgba | None:
    if len(digits) not in (3, 4, 6, 8) or any(c not in "0123456789abcdef" for c in digits):
        return None
    if len(digits) in (3, 4):
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i : i + 2], 16) for i in range(0, len(digits), 2)]
    alpha = channels[3] / 255 if len(channels) == 4 else 1.0
    return (float(channels[0]), float(channels[1]), float(channels[2]), alpha)


def _legacy_colour(value: str) -> Rgba | None:
    """An HTML colour attribute (`<font color>`, `bgcolor`), which also takes hex without `#`."""
    value = value.strip().lower()
    if len(value) in (3, 6) and all(c in "0123456789abcdef" for c in value):
        return _hex(value)
    return colour(value)


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return _CSS_ESCAPE.sub(_unescaped, text)


def _unescaped(match: re.Match[str]) -> str:
    if match[2] is not None:
        return "" if match[2] == "\n" else match[2]  # an escaped newline continues the line
    code = int(match[1], 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def _over(top: Rgba, bottom: Rgba) -> Rgba:
    """`top` drawn over the opaque `bottom`."""
    a = top[3]
    return (
        top[0] * a + bottom[0] * (1 - a),
        top[1] * a + bottom[1] * (1 - a),
        top[2] * a + bottom[2] * (1 - a),
        1.0,
    )


def _contrast(one: Rgba, other: Rgba) -> float:
    """The WCAG 2 contrast ratio of two opaque colours (1 to 21)."""
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _luminance(rgba: Rgba) -> float:
    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(rgba[0]) + 0.7152 * linear(rgba[1]) + 0.0722 * linear(rgba[2])
