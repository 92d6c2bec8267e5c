"""The scripted model's rewrites of a region: what "rename a to b", "add a docstring",
"add type hints", "make it async" and the unused-code clean-ups do. Pure.

Each function takes the region's text and returns it rewritten (the same text when
there is nothing to do). They are small scripted rules, documented in
docs/emulator.md, not a model: Python for most, JavaScript and TypeScript for
renames, docstrings (a ``/** ... */`` comment) and async. ``phrasings.py`` reads the
user's words; ``model.py`` decides what applies.
"""

from __future__ import annotations

import re

from sparkls.emulator.code import rename_in_code

__all__ = [
    "add_docstring", "add_type_hints", "language", "make_async", "one_name", "remove_imports",
    "remove_unused_variables", "rename",
]

_PY_DEF_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<async>async[ \t]+)?(?P<kw>def|class)[ \t]+(?P<name>\w+)", re.M)
_JS_DEF_RE = re.compile(
    r"^(?P<indent>[ \t]*)(?:export[ \t]+)?(?:default[ \t]+)?(?:"
    r"(?P<async>async[ \t]+)?function\b[ \t]*\*?[ \t]*(?P<fname>[\w$]+)"
    r"|(?:abstract[ \t]+)?class[ \t]+(?P<cname>[\w$]+)"
    r"|(?:const|let|var)[ \t]+(?P<vname>[\w$]+)[ \t]*(?::[^=\n]+)?=[ \t]*(?P<vasync>async[ \t]+)?(?:\(|function\b|[\w$]+[ \t]*=>))",
    re.M,
)
_EXTENSIONS = {".py": "python", ".pyi": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript",
               ".cjs": "javascript", ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript"}
_IMPORT_RE = re.compile(r"^(?P<indent>[ \t]*)(?:from[ \t]+(?P<module>[\w.]+)[ \t]+)?import[ \t]+(?P<names>[^()#\n]+?)[ \t]*(?P<comment>#.*)?$")
_ASSIGN_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<name>[A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)[ \t]*(?P<value>.*)$")


def language(request_text: str) -> str:
    """The region's language, from the request's ``File:`` line: python, javascript,
    typescript, "other", or "" when no file is named."""
    m = re.search(r"^File: (.*)$", request_text, re.M)
    if m is None:
        return ""
    suffix = re.search(r"\.\w+$", m.group(1).strip())
    return _EXTENSIONS.get(suffix.group().lower(), "other") if suffix else "other"


def _word(name: str) -> str:
    return rf"(?<![\w$]){re.escape(name)}(?![\w$])"


def rename(region: str, old: str, new: str, held: tuple[str, ...] = (), lang: str = "") -> str:
    """*region* with every whole identifier (or dotted name) *old* made *new* where it is
    code (never in a string or a comment: code.py), except on lines that hold one of
    the *held* phrases (the instruction's own comment)."""
    lowered = tuple(h.lower() for h in held)
    return rename_in_code(region, [(old, new)], lang, keep_line=lambda line: any(h in line.lower() for h in lowered))


def one_name(region: str, lang: str, cursor: int | None) -> str | None:
    """The name "it" means: the identifier at the cursor, else the region's only
    top-level definition; None when that is not clear."""
    if cursor is not None:
        before = re.search(r"[\w$]*$", region[:cursor]).group()
        after = re.match(r"[\w$]*", region[cursor:]).group()
        if (before + after) and not (before + after)[0].isdigit():
            return before + after
    found = _definitions(region, lang)
    if not found:
        return None
    top = min(len(m.group("indent")) for m in found)
    names = [_def_name(m) for m in found if len(m.group("indent")) == top]
    return names[0] if len(names) == 1 else None


def _definitions(region: str, lang: str) -> list[re.Match[str]]:
    pattern = _JS_DEF_RE if lang in ("javascript", "typescript") else _PY_DEF_RE
    return list(pattern.finditer(region))


def _def_name(m: re.Match[str]) -> str:
    return next(m.group(g) for g in ("name", "fname", "cname", "vname") if g in m.re.groupindex and m.group(g))


def _words(name: str) -> str:
    """A name as a sentence: ``circle_area`` and ``CircleArea`` -> ``Circle area.``"""
    if name == "__init__":
        return "Create a new instance."
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name.strip("_$")) or [name]
    text = " ".join(p if p.isupper() and len(p) > 1 else p.lower() for p in parts)
    return text[0].upper() + text[1:] + "."


def _header_end(region: str, start: int) -> int | None:
    """The offset just past the ``:`` that ends the Python header starting at *start*
    (brackets and strings skipped), or None."""
    depth, i, quote = 0, start, None
    while i < len(region):
        c = region[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            return i + 1
        elif c == "#":
            nl = region.find("\n", i)
            i = len(region) if nl < 0 else nl - 1
        i += 1
    return None


def _body_indent(region: str, after: int, indent: str) -> str:
    for line in region[after:].splitlines()[1:]:
        if line.strip():
            own = line[: len(line) - len(line.lstrip())]
            return own if len(own) > len(indent) else indent + "    "
    return indent + "    "


def add_docstring(region: str, lang: str) -> str:
    """A one-line docstring under the region's first definition, made from its name;
    the region as it is when that definition has one already."""
    found = _definitions(region, lang)
    if not found:
        return region
    m = found[0]
    if lang in ("javascript", "typescript"):
        line_start = m.start()
        if region[:line_start].rstrip().endswith("*/"):
            return region
        return f"{region[:line_start]}{m.group('indent')}/** {_words(_def_name(m))} */\n{region[line_start:]}"
    end = _header_end(region, m.end())
    if end is None:
        return region
    eol = region.find("\n", end)
    if eol < 0 or region[end:eol].split("#")[0].strip():
        return region  # a one-line body (def f(): return 1): left as it is
    rest = region[eol + 1 :].lstrip()
    if re.match(r"[rRuUbB]?(\"\"\"|''')", rest):
        return region
    body = _body_indent(region, end, m.group("indent"))
    return f"{region[: eol + 1]}{body}\"\"\"{_words(m.group('name'))}\"\"\"\n{region[eol + 1 :]}"


def make_async(region: str, lang: str) -> str:
    """The region's first function made ``async`` (Python ``async def``, JavaScript and
    TypeScript ``async function`` or an ``async`` arrow function)."""
    for m in _definitions(region, lang):
        if m.group("async") or ("vasync" in m.re.groupindex and m.group("vasync")):
            return region
        if lang in ("javascript", "typescript"):
            if m.group("fname"):
                at = region.index("function", m.start())
            elif m.group("vname"):
                at = region.index("=", m.start() + len(m.group("indent"))) + 1
                at += len(region[at:]) - len(region[at:].lstrip(" \t"))
            else:
                continue
            return region[:at] + "async " + region[at:]
        if m.group("kw") == "def":
            at = m.start() + len(m.group("indent"))
            return region[:at] + "async " + region[at:]
    return region


# -- type hints (Python) --------------------------------------------------------

_BY_NAME = (
    ("bool", r"is_\w+|has_\w+|should_\w+|can_\w+|flag|verbose|debug|enabled|force|strict|quiet|dry_run"),
    ("int", r"n|i|j|k|count|index|idx|size|length|num|number|total|limit|offset|depth|level|port|year|\w+_count|\w+_index|num_\w+|n_\w+"),
    ("float", r"x|y|z|r|radius|width|height|area|price|rate|ratio|scale|factor|amount|weight|angle|seconds|timeout|delay|temperature|\w+_ms|\w+_seconds"),
    ("str", r"s|name|text|title|label|message|msg|prefix|suffix|url|word|line|path|filename|key|\w+_name|\w+_text|\w+_path|\w+_url"),
)


def _literal_type(value: str) -> str | None:
    value = value.strip()
    if re.fullmatch(r"-?\d+", value):
        return "int"
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+|\d+e-?\d+)", value):
        return "float"
    if re.fullmatch(r"[fFrR]?(\"[^\"]*\"|'[^']*')", value):
        return "str"
    if value in ("True", "False"):
        return "bool"
    return {"[]": "list", "{}": "dict", "()": "tuple"}.get(value)


def _type_of(param: str, default: str | None) -> str | None:
    if default is not None:
        return _literal_type(default)
    return next((t for t, names in _BY_NAME if re.fullmatch(names, param)), None)


def _split_params(text: str) -> list[str]:
    parts, depth, last = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


def _annotate(param: str) -> str:
    m = re.fullmatch(r"(?P<lead>\s*)(?P<name>[A-Za-z_]\w*)(?P<gap>\s*)(?:=\s*(?P<default>.*?))?(?P<trail>\s*)", param, re.S)
    if m is None or m.group("name") in ("self", "cls"):
        return param
    kind = _type_of(m.group("name"), m.group("default"))
    if kind is None:
        return param
    if m.group("default") is None:
        return f"{m.group('lead')}{m.group('name')}: {kind}{m.group('gap')}{m.group('trail')}"
    return f"{m.group('lead')}{m.group('name')}: {kind} = {m.group('default')}{m.group('trail')}"


def _expression_type(value: str) -> str | None:
    if re.search(r"(==|!=|<=|>=|<|>|\bis\b|\bin\b|^not\b)", value):
        return "bool"
    if re.search(r"(?<![\w.])\d+\.\d*", value) and re.fullmatch(r"[\w.\s+\-*/%()]+", value):
        return "float"  # arithmetic with a float literal
    return None


def _return_type(body: str) -> str | None:
    if re.search(r"\byield\b", body):
        return None
    values = [v.strip() for v in re.findall(r"^[ \t]*return\b(.*)$", body, re.M)]
    values = [v for v in values if v]
    if not values:
        return "None"
    kinds = {_literal_type(v) or _expression_type(v) for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def add_type_hints(region: str) -> str:
    """Annotations on the region's Python functions where the script can tell them:
    a parameter from its default's literal or its name (docs/emulator.md), a return
    ``-> None`` when the function returns no value (or the literals' one type)."""
    out, done = [], 0
    for m in _PY_DEF_RE.finditer(region):
        if m.group("kw") != "def":
            continue
        open_at = region.find("(", m.end())
        end = _header_end(region, m.end())
        if open_at < 0 or end is None:
            continue
        close_at = region.rfind(")", open_at, end)
        if close_at < 0:
            continue
        params = ",".join(_annotate(p) for p in _split_params(region[open_at + 1 : close_at]))
        tail = region[close_at + 1 : end - 1]
        if "->" not in tail:
            body_lines = []
            for line in region[end:].splitlines()[1:]:
                if line.strip() and len(line) - len(line.lstrip()) <= len(m.group("indent")):
                    break
                body_lines.append(line)
            kind = _return_type("\n".join(body_lines))
            tail = f" -> {kind}{tail}" if kind else tail
        out.append(region[done : open_at + 1] + params + ")" + tail + ":")
        done = end
    return "".join(out) + region[done:]


# -- unused code (Python) -------------------------------------------------------


def _import_items(names: str, module: str | None) -> list[tuple[str, str, str]]:
    """(as written, the name it binds, its qualified name) per imported item."""
    items = []
    for raw in names.split(","):
        written = raw.strip()
        parts = written.split()
        if not parts:
            continue
        target = parts[0]
        bound = parts[2] if len(parts) == 3 and parts[1] == "as" else (target if module else target.split(".")[0])
        items.append((written, bound, f"{module}.{target}" if module else target))
    return items


def remove_imports(region: str, unused: set[str] | None, used_elsewhere: str) -> str:
    """*region* without the imports of *unused* (names or qualified names as linters
    report them); with None, without those whose name *used_elsewhere* (the code the
    request shows outside import lines) never mentions, when it shows any code."""
    if unused is None and not re.search(r"\w", used_elsewhere):
        return region
    out = []
    for line in region.splitlines(keepends=True):
        m = _IMPORT_RE.match(line.rstrip("\r\n"))
        if m is None or m.group("names").strip() == "*":
            out.append(line)
            continue
        items = _import_items(m.group("names"), m.group("module"))
        if unused is not None:
            kept = [i for i in items if i[1] not in unused and i[2] not in unused]
        else:
            kept = [i for i in items if re.search(_word(i[1]), used_elsewhere)]
        if len(kept) == len(items):
            out.append(line)
        elif kept:
            head = f"from {m.group('module')} import " if m.group("module") else "import "
            comment = f"  {m.group('comment')}" if m.group("comment") else ""
            ending = line[len(line.rstrip("\r\n")) :]
            out.append(f"{m.group('indent')}{head}{', '.join(i[0] for i in kept)}{comment}{ending}")
    return "".join(out)


def remove_unused_variables(region: str, unused: set[str] | None) -> str:
    """*region* without the assignments to *unused* local variables (with None: the
    names assigned in a function of the region and never read in it). An assigned
    call keeps its call (``x = f()`` -> ``f()``); ``except E as e`` and ``with f() as
    x`` lose their ``as`` name."""
    if unused is None:
        if not _PY_DEF_RE.search(region):
            return region  # module-level names may be used elsewhere
        unused = {m.group("name") for line in region.splitlines() if (m := _ASSIGN_RE.match(line))}
        unused = {n for n in unused if len(re.findall(_word(n), region)) == 1}
    out = []
    for line in region.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        m = _ASSIGN_RE.match(body)
        if m and m.group("name") in unused and _balanced(m.group("value")):
            value = m.group("value").split("#")[0].strip()
            if "(" in value:
                out.append(f"{m.group('indent')}{value}{line[len(body):]}")
            continue
        for name in unused:
            line = re.sub(rf"^([ \t]*(?:except\b[^:\n]*|with\b[^:\n]*))[ \t]+as[ \t]+{re.escape(name)}\b", r"\1", line)
        out.append(line)
    return "".join(out)


def _balanced(value: str) -> bool:
    return sum(value.count(c) for c in "([{") == sum(value.count(c) for c in ")]}") and bool(value.strip())
