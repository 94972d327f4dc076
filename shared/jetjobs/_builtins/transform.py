"""`data.transform`: JSON through declarative steps, with JMESPath expressions inside.

```json
{"url": "https://api.example.com/people",
 "steps": [{"op": "filter", "expr": "age > `30`"},
           {"op": "map", "expr": "{name: name, city: address.city}"},
           {"op": "rename", "fields": {"name": "fullName"}}]}
```

`select` replaces the data by an expression of it; `filter` keeps the items of a list for which an
expression is true (JMESPath truth: false, null and empty strings, lists and objects are false);
`map` replaces each item by an expression of it; `rename` renames keys of an object or of each
object in a list. The input is `data`, or JSON fetched from `url` (GET, under the host policy of
jetjobs._builtins.hosts, at most `JETJOBS_WEBHOOK_MAX_RESPONSE_BYTES`). Expressions are checked when
the job is submitted (an invalid one never reaches the stream); a step that does not fit the data
(`filter` on an object) rejects the job.

The job's result (in the ledger) says where the output is, so a reader never has to guess:
`{"data": <output>}` when that fits `JETJOBS_MAX_RESULT_BYTES`; otherwise the output's JSON goes to
the object store `<ns>_results` under `<job id>.json` and the result is
`{"object": {"bucket": "<ns>_results", "key": "<job id>.json", "bytes": n}}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import jmespath
import jmespath.exceptions
import msgspec

from jetjobs._builtins.hosts import HostPolicy
from jetjobs._builtins.outbound import raise_for_reply, send
from jetjobs._builtins.payloads import DataTransform, Filter, Map, Rename, Select, Step
from jetjobs._errors import Reject, TransformError
from jetjobs._observability.redact import mask_url
from jetjobs._wire.envelope import ENCODER

if TYPE_CHECKING:
    from jetjobs._runtime.app import JobContext


def _truthy(value: Any) -> bool:
    """JMESPath truth: false, null, and empty strings, arrays and objects are false; 0 is true."""
    if value is None or value is False:
        return False
    return not (isinstance(value, str | list | dict) and len(value) == 0)


def _search(expr: str, data: Any, where: str) -> Any:
    try:
        return jmespath.search(expr, data)
    except jmespath.exceptions.JMESPathError as exc:
        raise TransformError(f"{where}: {exc}") from None


def _items(data: Any, where: str) -> list[Any]:
    if not isinstance(data, list):
        raise TransformError(f"{where} needs a list, got {type(data).__name__}")
    return data


def _rename(data: Any, fields: dict[str, str], where: str) -> Any:
    if isinstance(data, dict):
        return {fields.get(key, key): value for key, value in data.items()}
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        return [{fields.get(key, key): value for key, value in item.items()} for item in data]
    raise TransformError(f"{where} needs an object or a list of objects, got {type(data).__name__}")


def apply_steps(steps: Sequence[Step], data: Any) -> Any:
    """Run the steps in order over JSON `data`.

    Raises:
        TransformError: a step does not fit its input, or its expression fails on it.
    """
    for number, step in enumerate(steps, 1):
        where = f"step {number} ({type(step).__name__.lower()})"
        match step:
            case Select(expr=expr):
                data = _search(expr, data, where)
            case Filter(expr=expr):
                data = [item for item in _items(data, where) if _truthy(_search(expr, item, where))]
            case Map(expr=expr):
                data = [_search(expr, item, where) for item in _items(data, where)]
            case Rename(fields=fields):
                data = _rename(data, fields, where)
    return data


async def _fetch(ctx: JobContext, url: str) -> Any:
    config = ctx.settings.webhook
    reply = await send(
        HostPolicy.from_settings(config),
        "GET",
        url,
        headers={"Accept": "application/json", "User-Agent": "jetjobs"},
        timeout=config.timeout,
        max_bytes=config.max_response_bytes,
    )
    raise_for_reply(reply, what=f"GET {mask_url(url)}", max_retry_after=config.max_retry_after)
    try:
        return msgspec.json.decode(reply.body)
    except msgspec.DecodeError as exc:
        raise Reject(f"GET {mask_url(url)} did not answer JSON: {exc}") from None


async def transform(ctx: JobContext, payload: DataTransform) -> Any:
    """Transform the input; return `{"data": output}`, or `{"object": ...}` naming where it is stored."""
    data = payload.data if payload.url is None else await _fetch(ctx, payload.url)
    try:
        output = apply_steps(payload.steps, data)
    except TransformError as exc:
        raise Reject(str(exc)) from None
    inline = {"data": output}
    if len(ENCODER.encode(inline)) <= ctx.settings.max_result_bytes:
        return inline
    encoded = ENCODER.encode(output)
    topology = ctx.publisher.topology
    store = await topology.results_store(ctx.publisher.js)
    key = f"{ctx.id}.json"
    await store.put(key, encoded)
    return {"object": {"bucket": topology.results_bucket, "key": key, "bytes": len(encoded)}}
