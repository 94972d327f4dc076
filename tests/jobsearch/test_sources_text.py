"""Board text to plain text: what is kept, what is dropped, and that hostile text stays data."""

from __future__ import annotations

from jobsearch.sources.text import html_to_text, line, tidy


def test_tags_stripped_entities_decoded_blocks_become_lines() -> None:
    """Tags go, entities are decoded, paragraphs and list items become lines."""
    html = "<h2>Role</h2><p>Build &amp; run <b>APIs</b>.</p><ul><li>Python</li><li>SQL&nbsp;&#8211; more</li>"
    assert html_to_text(html) == "Role\n\nBuild & run APIs.\n\n- Python\n\n- SQL \u2013 more"


def test_script_style_and_comments_dropped() -> None:
    """Script and style content and HTML comments never reach the text."""
    html = "<p>Hi</p><script>alert('x')</script><style>p{color:red}</style><!-- secret --><p>there</p>"
    assert html_to_text(html) == "Hi\n\nthere"


def test_escaped_html_is_unescaped_first() -> None:
    """Greenhouse's HTML-escaped HTML is unescaped, then converted."""
    assert html_to_text("&lt;p&gt;A &amp;amp; B&lt;/p&gt;", escaped=True) == "A & B"


def test_control_and_bidi_characters_removed() -> None:
    """C0/C1 controls and bidirectional overrides are removed; newlines and non-Latin text stay."""
    assert tidy("a\x00b\x1b[31mc\u202edef\u2066\n日本語") == "ab[31mcdef\n日本語"


def test_line_keeps_markup_characters_as_text() -> None:
    """A title that looks like markup is kept as the characters it is (sinks escape it)."""
    assert line("<script>alert(1)</script>") == "<script>alert(1)</script>"
    assert line('=HYPERLINK("http://x")') == '=HYPERLINK("http://x")'
    assert line("  Senior\n  Engineer &amp; Lead ") == "Senior Engineer & Lead"


def test_limits() -> None:
    """Text is cut to its limit; empty input gives empty text."""
    assert len(html_to_text("<p>" + "x" * 100 + "</p>", limit=10)) == 10
    assert html_to_text(None) == ""
    assert line(None) == ""
