"""The committed JSON Schemas and examples in `schemas/` match the wire Structs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jetjobs._cli.schemas import EXAMPLE_JOB, EXAMPLES, check_schemas, render, write_schemas
from jetjobs._wire.envelope import DEAD_LETTER_DECODER, STATUS_DECODER, decode_job


@pytest.fixture
def schemas_dir(repo_root: Path) -> Path:
    """The committed `schemas/` directory."""
    return repo_root / "schemas"


def test_committed_schemas_are_fresh(schemas_dir: Path) -> None:
    """Every generated file is committed and identical (else: `jetjobs schemas --write schemas`)."""
    assert check_schemas(schemas_dir) == []


def test_changed_copy_is_reported_stale(schemas_dir: Path, tmp_path: Path) -> None:
    """A copy with one schema edited and one example deleted reports exactly those two files."""
    copy = tmp_path / "schemas"
    shutil.copytree(schemas_dir, copy)
    assert check_schemas(copy) == []
    schema = json.loads((copy / "job.schema.json").read_text(encoding="utf-8"))
    schema["$defs"]["Job"]["properties"]["priority"]["enum"].append("urgent")
    (copy / "job.schema.json").write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
    (copy / "examples" / "status.json").unlink()
    assert sorted(check_schemas(copy)) == ["examples/status.json", "job.schema.json"]


def test_write_schemas_makes_a_fresh_directory(tmp_path: Path) -> None:
    """write_schemas into an empty directory produces exactly what check_schemas expects."""
    target = tmp_path / "out"
    assert sorted(check_schemas(target)) == sorted(render())
    write_schemas(target)
    assert check_schemas(target) == []


def test_job_example_decodes(schemas_dir: Path) -> None:
    """The published example job is a valid envelope, equal to the one it was generated from."""
    job = decode_job((schemas_dir / "examples" / "job.json").read_bytes())
    assert job == EXAMPLE_JOB
    assert job.msg_id == "welcome-email:ada@example.com"


def test_status_and_dead_letter_examples_decode(schemas_dir: Path) -> None:
    """The example status record and dead letter decode with the workers' own decoders."""
    status = STATUS_DECODER.decode((schemas_dir / "examples" / "status.json").read_bytes())
    assert status == EXAMPLES["status.json"]
    letter = DEAD_LETTER_DECODER.decode((schemas_dir / "examples" / "dead_letter.json").read_bytes())
    assert letter == EXAMPLES["dead_letter.json"]
    assert decode_job(letter.original) == EXAMPLE_JOB
