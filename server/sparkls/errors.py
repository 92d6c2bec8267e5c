"""The errors sparkls raises, each with a message fit to show a user.

::

    SparkError                    every error here; `.code` is a short stable id
    ├── ConfigError               settings that do not validate
    ├── Cancelled                 the user cancelled the work (its progress, say)
    ├── ModelError                anything between sparkls and the model
    │   ├── MissingApiKey         no key in the environment or settings
    │   ├── ConnectError          host unreachable, refused, TLS or handshake failure
    │   │   └── HandshakeRefused  the WebSocket upgrade refused by a non-API answer (proxy)
    │   ├── BadCaFile         the tier's `ca_file` does not load as a CA bundle; nothing sent
    │   ├── AuthError             401 / 403
    │   ├── ModelNotFound         404 for the model
    │   ├── EndpointNotFound      404 for the API path itself: a base URL without /v1
    │   ├── RateLimited           429; carries `retry_after` seconds when given
    │   ├── ServerError           5xx, `response.failed` or an in-band `server_error`
    │   ├── StreamError           the stream broke before the response completed
    │   ├── RequestTimeout        no complete answer in time (not retried: it may still run)
    │   ├── ReplyCutOff           the model stopped early (max_output_tokens, content_filter,
    │   │                         Chat `finish_reason: length`); `reason` says why; never applied
    │   ├── ModelRefused          the model declined (a refusal); the message quotes it
    │   └── ApiError              any other error the API reported (in-band or status)
    └── EditError                 the reply could not become a safe edit
        ├── NoUsableReply         no usable code block: none, unclosed, empty, or a part only
        │   ├── AmbiguousReply    the reply could mean several edits (blocks, diff hunk places)
        │   ├── CodeLeftOut       the reply stands in for code it left out ("# ... rest unchanged")
        │   └── PatchRefused      a patch that cannot be applied whole to the region (a hunk
        │                         not found or found twice, malformed, another file's)
        ├── InvalidEdit           the new text does not parse where the old did
        ├── DocumentClosed        the document was closed while the model answered
        ├── DocumentChanged       the document changed in a way the edit cannot follow
        │   └── StaleEdit         the user typed in or against the edited region; dropped
        ├── EditRejected          the editor refused `workspace/applyEdit`
        ├── NothingToRefine       no sparkls edit in the document that a refine could revise
        └── DeepEditError         a deep-tier reply could not become a safe multi-file edit
            ├── MalformedBlocks   the SEARCH/REPLACE blocks are broken or missing (names the block)
            ├── PathRefused       a path outside the workspace: absolute, `..`, a symlink out
            ├── SearchNotFound    a SEARCH part matches nothing in its file (or the file is missing)
            ├── SearchAmbiguous   a SEARCH part matches several places; never guessed
            ├── FileAlreadyExists an empty SEARCH (create) names a file that has content
            └── MalformedPlan     the deep tier's plan (plan, then delegate) could not be read

Foreign exceptions (websockets, httpx, OSError) are translated where they are met,
in `models/`, with ``raise ... from exc``; nothing above `models/` sees them.
"""

from __future__ import annotations


class SparkError(Exception):
    """Base of every sparkls error; ``str(err)`` is the user-facing message."""

    code = "spark_error"


class ConfigError(SparkError):
    code = "invalid_settings"


class Cancelled(SparkError):
    code = "cancelled"


class ModelError(SparkError):
    code = "model_error"


class MissingApiKey(ModelError):
    code = "missing_api_key"


class ConnectError(ModelError):
    code = "connect_failed"


class HandshakeRefused(ConnectError):
    code = "websocket_refused"


class BadCaFile(ModelError):
    """The tier's `ca_file` (a setting of the user's) is missing, unreadable or not a
    CA bundle: no connection can be verified with it, so none is tried; not retried."""

    code = "bad_ca_file"


class AuthError(ModelError):
    code = "auth_failed"


class ModelNotFound(ModelError):
    code = "model_not_found"


class EndpointNotFound(ModelError):
    code = "endpoint_not_found"


class RateLimited(ModelError):
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerError(ModelError):
    code = "server_error"


class StreamError(ModelError):
    code = "stream_broken"


class RequestTimeout(ModelError):
    code = "timeout"


class ReplyCutOff(ModelError):
    """The response ended as incomplete: a complete stream, but not a complete answer.

    Not a transport failure (the connection is fine) and not retried blindly: the
    same request would most likely be cut off again."""

    code = "reply_cut_off"

    def __init__(self, message: str, *, reason: str = "incomplete") -> None:
        super().__init__(message)
        self.reason = reason


class ModelRefused(ModelError):
    """The model answered with a refusal instead of code; `refusal` is its text."""

    code = "model_refused"

    def __init__(self, message: str, *, refusal: str = "") -> None:
        super().__init__(message)
        self.refusal = refusal


class ApiError(ModelError):
    code = "api_error"

    def __init__(
        self, message: str, *, api_code: str | None = None, status: int | None = None, param: str | None = None
    ) -> None:
        super().__init__(message)
        self.api_code = api_code
        self.status = status
        self.param = param  # the request parameter the error names, if it names one


class EditError(SparkError):
    code = "edit_failed"


class NoUsableReply(EditError):
    code = "no_usable_reply"


class InvalidEdit(EditError):
    code = "invalid_edit"


class NothingToRefine(EditError):
    code = "nothing_to_refine"


class DocumentClosed(EditError):
    code = "document_closed"


class DocumentChanged(EditError):
    code = "document_changed"


class EditRejected(EditError):
    code = "edit_rejected"


class DeepEditError(EditError):
    """A deep-tier failure; `block` is the 1-based block (or plan step) it concerns, if any."""

    code = "deep_edit_failed"

    def __init__(self, message: str, *, path: str | None = None, block: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.block = block


class MalformedBlocks(DeepEditError):
    code = "malformed_blocks"


class PathRefused(DeepEditError):
    code = "path_refused"


class SearchNotFound(DeepEditError):
    code = "search_not_found"


class SearchAmbiguous(DeepEditError):
    code = "search_ambiguous"


class FileAlreadyExists(DeepEditError):
    code = "file_exists"


class MalformedPlan(DeepEditError):
    code = "malformed_plan"


class StaleEdit(DocumentChanged):
    """The user changed the edited region (or replaced the whole text) while the model
    answered; the edit was dropped. `change_index` is the 0-based change that did it."""

    code = "stale_edit"

    def __init__(
        self,
        message: str = "The code changed while Spark was writing; nothing was applied.",
        *,
        change_index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.change_index = change_index


class AmbiguousReply(NoUsableReply):
    """The reply could mean more than one edit (several differing code blocks, a diff
    hunk that fits several places); sparkls never guesses."""

    code = "ambiguous_reply"


class CodeLeftOut(NoUsableReply):
    """The reply's code holds a comment standing in for code the model left out
    ("# ... rest unchanged"): applying it would delete that code."""

    code = "code_left_out"


class PatchRefused(NoUsableReply):
    """A patch (the `apply_patch` tool's, or one written as text) that cannot be applied
    whole to the region. Nothing of it is applied; the edit may be asked again as the
    whole region. `reason` says why in a word, `hunk` which hunk (1-based) when one is
    to blame:

    - ``malformed``: a line that is no patch line, an empty hunk, no hunk, no file named;
    - ``cut_off``: an envelope without its ``*** End Patch``;
    - ``files``: several patches or files, a file added, deleted or moved;
    - ``other_file``: a patch of another file than the one edited;
    - ``not_found`` / ``ambiguous``: a hunk whose lines are nowhere / at several places
      in the region; ``overlap``: two hunks over the same lines;
    - ``unplaced``: a hunk of added lines only, with no anchor found once to put them after;
    - ``elided``: an added line standing in for code ("# ... rest unchanged").
    """

    code = "patch_refused"

    def __init__(self, message: str, *, reason: str, hunk: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.hunk = hunk
