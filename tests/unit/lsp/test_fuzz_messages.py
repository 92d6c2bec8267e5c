"""Fuzzing the gate with sparkls's real protocol behind it: any JSON value, any mix of
the fields JSON-RPC names, with real LSP methods and junk params, gets a verdict and
never an exception; an error answer never echoes an id that is not a string or an
integer. Bounded for CI like the other fuzz tests (`SPARKLS_FUZZ_EXAMPLES` runs longer)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from tests.unit.fuzzing import fuzz_settings
from sparkls.lsp.rpc import Answer, Deliver, Drop, Exit, Phase
from sparkls.lsp import build_server

FUZZ = fuzz_settings(300)

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
METHODS = st.sampled_from(sorted(types.METHOD_TO_TYPES)) | st.text(max_size=12)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2.0]) | SCALARS,
        "id": SCALARS | JSON,
        "method": METHODS | SCALARS,
        "params": JSON,
        "result": JSON,
        "error": JSON | st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=8)}),
    },
)
PROTOCOL = build_server().protocol  # its gate's structure() is the real one


@FUZZ
@given(FIELDS | JSON, st.sampled_from(list(Phase)))
def test_any_message_gets_a_verdict_and_never_an_exception(message, phase):
    """Whatever arrives, in whatever phase: deliver, answer, drop or exit; nothing raises."""
    gate = PROTOCOL.gate
    gate.phase = phase
    verdict = gate.receive(json.dumps(message).encode())
    assert isinstance(verdict, (Deliver, Answer, Drop, Exit))
    if isinstance(verdict, Answer):
        assert verdict.id is None or (isinstance(verdict.id, (str, int)) and not isinstance(verdict.id, bool))
        json.dumps(verdict.to_json())
