"""How fast models really write patches: one edit of a region, in each shape of drift.

Each row is a reply to a request that asked for a patch (the text form, or the
`apply_patch` tool's diff), the region it patches and what must come of it: the
region's exact new text (`applies`), or a refusal (nothing changed). Shared by
tests/unit/test_patch_drift.py (asserts) and bench/real_edits.py (counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkls.edits.reply import RegionView

PATH = "geometry/shapes.py"

DOC = '''\
import math


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self, unit="cm"):
        """Area of the circle, in square units."""
        if self.r < 0:
            return 0
        scale = UNITS[unit]
        total = 3.14 * self.r ** 2
        if unit == "mm":
            return 0
        return total * scale

    def name(self):
        return "circle"
'''
OLD = DOC[DOC.index('    def area') : DOC.index("\n    def name") + 1]
# The edit every row means: 3.14 becomes math.pi, and the result is rounded.
NEW = (OLD.replace("total = 3.14 *", "total = math.pi *")
       .replace("return total * scale", "return round(total * scale, 2)"))

QUOTED_DOC = '''\
def label(name):
    """Return the label shown for “name” — one line."""
    text = f"{name} – shape"
    return text
'''
QUOTED_NEW = QUOTED_DOC.replace("return text", "return text.strip()")

SPACED_DOC = 'def pad(s):\n    out = s   \n    return out\n'  # a line with trailing spaces
SPACED_NEW = 'def pad(s):\n    out = s   \n    return out.ljust(8)\n'

HUNK_PI = '''\
@@
         scale = UNITS[unit]
-        total = 3.14 * self.r ** 2
+        total = math.pi * self.r ** 2
'''
HUNK_ROUND = '''\
@@
             return 0
-        return total * scale
+        return round(total * scale, 2)
'''
DIFF = HUNK_PI + HUNK_ROUND


def envelope(diff: str, path: str = PATH) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n{diff}*** End Patch\n"


def dedent4(diff: str) -> str:
    """Every hunk line moved 4 spaces left (the whole hunk written one level shallower)."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line[:1] in " +-" and line[1:5] == "    ":
            line = line[0] + line[5:]
        out.append(line)
    return "".join(out)


def deeper4(diff: str) -> str:
    """Every hunk line moved 4 spaces right (the whole hunk written one level deeper)."""
    return "".join(line[0] + "    " + line[1:] if line[:1] in " +-" and line[1:].strip() else line
                   for line in diff.splitlines(keepends=True))


GO_DOC = "package shapes\n\nfunc Area(r float64) float64 {\n\tif r < 0 {\n\t\treturn 0\n\t}\n\treturn 3.14 * r * r\n}\n"
GO_OLD = GO_DOC[GO_DOC.index("func Area") :]
GO_NEW = GO_OLD.replace("3.14 * r * r", "math.Pi * r * r")
WIDE_DOC = "def label():\n    name\u00a0=\u00a0\"ｓｈａｐｅ\"\n    return name\n"  # a no-break space, fullwidth letters
WIDE_NEW = WIDE_DOC.replace("return name", "return name.upper()")


def tabbed(diff: str) -> str:
    """Every hunk line indented with a tab per four spaces."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line[:1] in " +-":
            body = line[1:]
            depth = (len(body) - len(body.lstrip(" "))) // 4
            line = line[0] + "\t" * depth + body[depth * 4 :]
        out.append(line)
    return "".join(out)


@dataclass(frozen=True)
class Drift:
    name: str
    reply: str  # the text reply, or the tool's diff when `tool`
    applies: bool  # True: the region must become `new`; False: refused, nothing changed
    doc: str = DOC
    old: str = OLD
    new: str = NEW
    tool: bool = False  # the reply is an apply_patch_call's diff (its path: `named`)
    named: str | None = PATH

    def view(self) -> RegionView:
        start = self.doc.index(self.old)
        return RegionView(self.doc, start, start + len(self.old), "python")


DRIFTS = [
    Drift("envelope", envelope(DIFF), True),
    Drift("tool diff", DIFF, True, tool=True),
    Drift("tool diff in an envelope", envelope(DIFF), True, tool=True),
    Drift("tool diff for another file", DIFF, False, tool=True, named="geometry/other.py"),
    Drift("first hunk without @@", envelope(DIFF.removeprefix("@@\n")), True),
    Drift("second hunk without @@", envelope(HUNK_PI + HUNK_ROUND.removeprefix("@@\n")), False),
    Drift("unified line numbers in headers", envelope(HUNK_PI.replace("@@", "@@ -13,2 +13,2 @@")
                                                      + HUNK_ROUND.replace("@@", "@@ -15,2 +15,2 @@ def area")), True),
    Drift("anchor on the def line", envelope(HUNK_PI.replace("@@", '@@     def area(self, unit="cm"):') + HUNK_ROUND), True),
    Drift("stacked anchors, the class outside the region",
          envelope("@@ class Circle:\n" + HUNK_PI.replace("@@", '@@     def area(self, unit="cm"):') + HUNK_ROUND), True),
    Drift("whole hunks one level shallower", envelope(dedent4(DIFF)), True),
    Drift("context shallower, changed lines at the right depth",
          envelope(HUNK_PI.replace("         scale", "     scale") + HUNK_ROUND), False),
    Drift("context with trailing spaces", envelope(HUNK_PI.replace("UNITS[unit]", "UNITS[unit]  ") + HUNK_ROUND), True),
    Drift("context without the file's trailing spaces",
          envelope("@@\n     out = s\n-    return out\n+    return out.ljust(8)\n", "pad.py"), True,
          doc=SPACED_DOC, old=SPACED_DOC, new=SPACED_NEW, named="pad.py"),
    Drift("tabs for the file's spaces", envelope(tabbed(DIFF)), True),
    Drift("... for unchanged lines", envelope(HUNK_PI.replace("         scale = UNITS[unit]\n", "         ...\n") + HUNK_ROUND), False),
    Drift("an added line standing for code",
          envelope(HUNK_PI + "@@\n             return 0\n-        return total * scale\n+        # ... rest unchanged\n"), False),
    Drift("hunks out of order", envelope(HUNK_ROUND + HUNK_PI), True),
    Drift("a hunk that matches twice", envelope(HUNK_PI + "@@\n-            return 0\n+            return None\n"), False),
    Drift("a hunk found twice, an anchor to choose", envelope(
        HUNK_PI + '@@ if unit == "mm":\n-            return 0\n+            return None\n'), False),
    Drift("overlapping hunks", envelope(HUNK_PI + "@@\n-        total = 3.14 * self.r ** 2\n+        total = 3 * self.r ** 2\n"), False),
    Drift("no final newline", envelope(DIFF).removesuffix("\n"), True),
    Drift("CRLF patch", envelope(DIFF).replace("\n", "\r\n"), True),
    Drift("CRLF file, LF patch", envelope(DIFF), True, doc=DOC.replace("\n", "\r\n"),
          old=OLD.replace("\n", "\r\n"), new=NEW.replace("\n", "\r\n")),
    Drift("a patch for the wrong file", envelope(DIFF, "geometry/other.py"), False),
    Drift("the file's name only", envelope(DIFF, "shapes.py"), True),
    Drift("an absolute path", envelope(DIFF, "/home/me/project/geometry/shapes.py"), True),
    Drift("Begin Patch without its end", envelope(DIFF).replace("*** End Patch\n", ""), False),
    Drift("End Patch without its begin", envelope(DIFF).replace("*** Begin Patch\n", ""), True),
    Drift("two patches", envelope(HUNK_PI) + envelope(HUNK_ROUND), False),
    Drift("adds a file", envelope(DIFF) .replace("*** End Patch", "*** Add File: extra.py\n+x = 1\n*** End Patch"), False),
    Drift("deletes a file", envelope(DIFF).replace("*** End Patch", "*** Delete File: old.py\n*** End Patch"), False),
    Drift("moves the file", envelope(DIFF).replace(f"{PATH}\n", f"{PATH}\n*** Move to: geometry/round.py\n"), False),
    Drift("two files", envelope(DIFF).replace("*** End Patch", f"*** Update File: other.py\n{HUNK_PI}*** End Patch"), False),
    Drift("in a diff fence between prose", f"Here is the patch:\n\n```diff\n{envelope(DIFF)}```\n\nDone.", True),
    Drift("markers padded with spaces", envelope(DIFF).replace("*** Begin Patch", "  *** Begin Patch ")
          .replace("*** End Patch", "*** End Patch  "), True),
    Drift("a context line without its space", envelope(HUNK_PI.replace("         scale", "        scale") + HUNK_ROUND), False),
    Drift("line numbers before each line", envelope("@@\n13:         scale = UNITS[unit]\n14:-        total = 3.14 * self.r ** 2\n"
                                                     "14:+        total = math.pi * self.r ** 2\n" + HUNK_ROUND), False),
    Drift("typographic quotes written as ASCII", envelope(
        '@@\n     text = f"{name} - shape"\n-    return text\n+    return text.strip()\n', "label.py"), True,
        doc=QUOTED_DOC, old=QUOTED_DOC, new=QUOTED_NEW, named="label.py"),
    Drift("the cursor marker in a context line", envelope(HUNK_PI.replace("UNITS[unit]", "UNITS[unit]<|cursor|>") + HUNK_ROUND), True),
    Drift("a region marker as context", envelope('@@\n <|editable_region_start|>\n     def area(self, unit="cm"):\n'
                                                 '-        """Area of the circle, in square units."""\n'
                                                 '+        """Area of the circle, in square metres."""\n'), True,
          new=OLD.replace("in square units", "in square metres")),
    Drift("context from outside the region", envelope("@@\n         self.r = r\n \n" + '     def area(self, unit="cm"):\n'
                                                      '-        """Area of the circle, in square units."""\n'
                                                      '+        """Area of the circle."""\n'), False),
    Drift("a changed line misquoted", envelope(HUNK_PI.replace("-        total = 3.14", "-        total = 3.141")), False),
    Drift("End of File after the last hunk", envelope(DIFF + "*** End of File\n"), True),
    Drift("no newline note", envelope(DIFF + "\\ No newline at end of file\n"), True),
    Drift("file headers of a unified diff", envelope("--- a/geometry/shapes.py\n+++ b/geometry/shapes.py\n" + DIFF), True),
    Drift("added lines with trailing spaces", envelope(DIFF.replace("math.pi * self.r ** 2", "math.pi * self.r ** 2   ")), True),
    Drift("blank context line written empty", envelope(
        '@@\n         if self.r < 0:\n-            return 0\n+            return None\n',
    ), True, new=OLD.replace("if self.r < 0:\n            return 0", "if self.r < 0:\n            return None")),
    Drift("insertion after an anchor", envelope('@@     def area(self, unit="cm"):\n+        # rounded to 2 places\n'), True,
          new=OLD.replace('"cm"):\n', '"cm"):\n        # rounded to 2 places\n')),
    Drift("insertion with nothing to place it by", envelope('@@\n+        # rounded to 2 places\n'), False),
    Drift("insertion after an anchor found twice", envelope("@@             return 0\n+        # rounded\n"), False),
    Drift("insertion after stacked anchors, the inner one found twice",
          envelope('@@     def area(self, unit="cm"):\n@@             return 0\n+        # rounded\n'), False),
    Drift("insertion after an anchor outside the region", envelope("@@     def name(self):\n+        # rounded\n"), False),
    Drift("a hunk header and nothing under it", envelope(DIFF + "@@ def name(self):\n"), False),
    Drift("the region's first line deleted", envelope('@@\n-    def area(self, unit="cm"):\n+    def area(self, unit="m"):\n'), True,
          new=OLD.replace('unit="cm"', 'unit="m"')),
    Drift("a bare V4A diff in a fence", f"```diff\n{DIFF}```\n", True),
    Drift("the whole region instead of a patch", f"```python\n{NEW}```\n", True),
    Drift("a unified diff instead of a patch", "```diff\n--- a/geometry/shapes.py\n+++ b/geometry/shapes.py\n"
          "@@ -6,2 +6,2 @@\n         scale = UNITS[unit]\n-        total = 3.14 * self.r ** 2\n+        total = math.pi * self.r ** 2\n"
          "@@ -9,2 +9,2 @@\n             return 0\n-        return total * scale\n+        return round(total * scale, 2)\n```\n", True),
    Drift("an empty reply", "", False),
    Drift("a patch in words", "I would replace 3.14 with math.pi and round the result.", False),
    Drift("whole hunks one level deeper", envelope(deeper4(DIFF)), True),
    Drift("spaces for the file's tabs", envelope("@@\n     if r < 0 {\n         return 0\n     }\n-    return 3.14 * r * r\n"
                                                 "+    return math.Pi * r * r\n", "area.go"), True,
          doc=GO_DOC, old=GO_OLD, new=GO_NEW, named="area.go"),
    Drift("a repeated line made unique by its context",
          envelope('@@\n         if unit == "mm":\n-            return 0\n+            return None\n'), True,
          new=OLD.replace('if unit == "mm":\n            return 0', 'if unit == "mm":\n            return None')),
    Drift("a hunk at the region's last line", envelope("@@\n     text = f\"{name} – shape\"\n-    return text\n", "label.py"), True,
          doc=QUOTED_DOC, old=QUOTED_DOC, new=QUOTED_DOC.replace("    return text\n", ""), named="label.py"),
    Drift("NFKC: ASCII for fullwidth letters and a no-break space",
          envelope('@@\n     name = "shape"\n-    return name\n+    return name.upper()\n', "label.py"), True,
          doc=WIDE_DOC, old=WIDE_DOC, new=WIDE_NEW, named="label.py"),
]
