"""The profile file: the example loads, `jobsearch init` writes it, errors name file, line and key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jobsearch._toml_lines import key_lines
from jobsearch.cli import main
from jobsearch.listing import BOARDS
from jobsearch.profile import ProfileError, Sample, example_profile, load_profile, parse_profile
from jobsearch.profile_location import default_profile_path


def test_shipped_example_loads(repo_root: Path) -> None:
    """`examples/profile.toml` loads, reads the sample board, and equals what `jobsearch init` writes."""
    path = repo_root / "examples" / "profile.toml"
    profile = load_profile(path)
    assert profile.person.name
    assert [type(s) for s in profile.sources] == [Sample]
    assert path.read_text(encoding="utf-8") == example_profile()


def test_every_commented_board_loads_when_uncommented() -> None:
    """Uncommenting the example's board tables gives a valid profile with every board."""
    commented = re.compile(r"^# (\[\[sources\]\]$|[a-z_]+ = )")
    lines = [line[2:] if commented.match(line) else line for line in example_profile().splitlines()]
    profile = parse_profile("\n".join(lines))
    boards = {type(s).__struct_config__.tag for s in profile.sources}
    assert boards == set(BOARDS)  # every board the pipeline reads is in the example


def test_init_writes_a_loadable_profile_and_refuses_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`jobsearch init PATH` writes a profile that loads; a second run fails and keeps the file."""
    path = tmp_path / "me.toml"
    assert main(["init", str(path)]) == 0
    assert load_profile(path).person.name
    path.write_text(path.read_text() + "\n# my edit\n")
    assert main(["init", str(path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert path.read_text().endswith("# my edit\n")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'board = "sample"',
            'board = "glassdoor"',
            "me.toml:{line}: sources[0].board: unknown board 'glassdoor'",
        ),
        ("tone =", "tnoe =", "me.toml:{line}: writing.tnoe: unknown key `tnoe`"),
        (
            "salary_floor = 65000",
            'salary_floor = "lots"',
            "me.toml:{line}: search.salary_floor: Expected `float",
        ),
        (
            "salary_floor = 65000",
            "salary_floor = -65000",
            "me.toml:{line}: search.salary_floor: Expected `float` >= 0.0",
        ),
        (
            'remote = "remote_or_hybrid"',
            'remote = "yes"',
            "me.toml:{line}: search.remote: Invalid enum value 'yes'",
        ),
        (
            'title = "Backend Engineer"',
            'titel = "Backend Engineer"',
            "me.toml:{line}: person.experience[1].titel",
        ),
    ],
)
def test_a_wrong_key_names_file_line_and_key(old: str, new: str, expected: str, tmp_path: Path) -> None:
    """A wrong key, type, value or board fails at load, naming the file, the line and the key."""
    text = example_profile()
    assert old in text
    line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / "me.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value).startswith(str(tmp_path / expected.format(line=line)))


def test_missing_key_names_its_table_and_bad_toml_its_line(tmp_path: Path) -> None:
    """A missing board token names the [[sources]] line; broken TOML names its line; no file says init."""
    path = tmp_path / "p.toml"
    path.write_text('[person]\nname = "A"\n\n[[sources]]\nboard = "sample"\n\n[[sources]]\nboard = "lever"\n')
    with pytest.raises(ProfileError, match=r"p\.toml:7: sources\[1\]\.site: missing required key `site`"):
        load_profile(path)
    path.write_text('[person]\nname = "A\n')
    with pytest.raises(ProfileError, match=r"not valid TOML.*line 2"):
        load_profile(path)
    with pytest.raises(ProfileError, match="jobsearch init"):
        load_profile(tmp_path / "none.toml")


def test_key_lines_follow_multiline_values() -> None:
    """Lines inside multi-line strings and arrays are not mistaken for keys or tables."""
    text = (
        '[person]\nname = "A"\nsummary = """\n[[sources]]\nboard = "fake"\n"""\n'
        'skills = [\n  "x = 1",\n  "[y]",\n]\n\n[[sources]]\nboard = "sample"\n'
    )
    lines = key_lines(text)
    assert lines[("person", "summary")] == 3
    assert lines[("person", "skills")] == 7
    assert lines[("sources", 0)] == 12
    assert lines[("sources", 0, "board")] == 13
    assert ("sources", 1) not in lines


def test_init_and_run_find_the_profile_in_the_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no path, `jobsearch init` writes `$XDG_CONFIG_HOME/jobsearch/profile.toml` and says
    to type `jobsearch run` alone; `JOBSEARCH_PROFILE` wins over it; a command given no
    --profile says which file it read (here a run refused for a typo, naming that file)."""
    monkeypatch.delenv("JOBSEARCH_PROFILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert main(["init"]) == 0
    written = tmp_path / "config" / "jobsearch" / "profile.toml"
    assert load_profile(written).person.name
    assert "then `jobsearch run`" in capsys.readouterr().out
    assert default_profile_path() == written
    chosen = tmp_path / "elsewhere.toml"
    chosen.write_text('[person]\nname = "A"\nnmae = "typo"\n')
    monkeypatch.setenv("JOBSEARCH_PROFILE", str(chosen))
    assert default_profile_path() == chosen
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert f"reading the profile {chosen} ($JOBSEARCH_PROFILE" in err
    assert "nmae" in err


def test_an_ntfy_url_without_a_topic_fails_at_load_naming_it() -> None:
    """`ntfy = "https://ntfy.sh/"` has no topic to publish to: the profile fails naming the key."""
    with pytest.raises(ProfileError, match="names no topic"):
        parse_profile('[person]\nname = "A"\n[digest]\nntfy = "https://ntfy.sh/"\n')
    assert parse_profile('[person]\nname = "A"\n[digest]\nntfy = "https://ntfy.sh/jane"\n').digest.enabled
