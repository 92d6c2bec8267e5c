"""What may be read or sent: exclusions, confinement, secrets, and THE guard.

Features build a `Draft` of typed parts (parts.py); `Guard.seal` turns it into the
`Wire` the model clients send (guard.py, wire.py). See docs/architecture.md.
"""

from sparkls.guard.guard import Guard, NotSendable, display_path, fixed_wire
from sparkls.guard.secrets import MARKER, secret_shaped
from sparkls.guard.parts import Draft, Earlier, Fixed, FromEditor, FromFile, FromModel, FromUser, Section, fenced, joined
from sparkls.guard.wire import PATCH_TOOL, ToolOutput, Wire, require_wire

__all__ = [
    "MARKER", "Draft", "Earlier", "Fixed", "FromEditor", "FromFile", "FromModel", "FromUser", "Guard", "NotSendable",
    "PATCH_TOOL", "Section", "ToolOutput", "Wire", "display_path", "fenced", "fixed_wire", "joined", "require_wire", "secret_shaped",
]
