"""Which of a name's definitions in other files are shown: the ones the file can see."""

from sparkls.context.ranking import choose_definers, closeness, import_words, IMPORTED, SAME_FOLDER, ELSEWHERE
from sparkls.context.symbols import Symbol


def _row(path, kind="function", line=0, container=None, name="url"):
    return (path, Symbol(name, kind, line, line, line, line, container))


def test_imported_files_rank_before_the_same_folder_before_the_rest():
    """`from .models import X` names models.py; a sibling file comes next; any other file last."""
    words = import_words(["from .models import Request", "use crate::auth::Token;"])
    assert closeness("pkg/models.py", "pkg/api.py", words) == IMPORTED
    assert closeness("src/auth/mod.rs", "src/main.rs", words) == IMPORTED
    assert closeness("pkg/utils.py", "pkg/api.py", words) == SAME_FOLDER
    assert closeness("other/utils.py", "pkg/api.py", words) == ELSEWHERE


def test_a_name_with_few_definers_is_found_anywhere():
    """Up to MAX_DEFINERS definers are all shown, wherever they live."""
    rows = [_row("a/x.py"), _row("b/y.py")]
    assert choose_definers(rows, "c/z.py", frozenset()) == rows


def test_a_common_name_keeps_only_the_definers_the_file_can_see():
    """With more than MAX_DEFINERS definers, only imported or sibling files' definitions are shown."""
    rows = [_row(f"far{i}/m.py") for i in range(5)] + [_row("pkg/models.py", line=7)]
    chosen = choose_definers(rows, "pkg/api.py", import_words(["from .models import Request"]))
    assert chosen == [_row("pkg/models.py", line=7)]


def test_the_class_the_region_names_comes_first():
    """`request: PreparedRequest` puts PreparedRequest's `url` before other classes' in the same file."""
    rows = [_row("m.py", "attribute", line, owner) for line, owner in ((1, "A"), (5, "B"), (9, "C"), (20, "Prepared"))]
    chosen = choose_definers(rows, "api.py", frozenset({"m"}), frozenset({"Prepared"}), max_definers=3)
    assert [symbol.container for _, symbol in chosen] == ["Prepared", "A", "B"]


def test_an_attributes_assignments_count_as_one_definer():
    """Five `self.url = ...` statements of one class are one definer, all of whose sites are shown."""
    rows = [_row("m.py", "attribute", line, "Request") for line in range(5)] + [_row("n.py"), _row("o.py")]
    chosen = choose_definers(rows, "api.py", frozenset())
    assert [path for path, _ in chosen] == ["m.py"] * 5 + ["n.py", "o.py"]


def test_the_file_being_edited_is_never_a_definer_from_elsewhere():
    """Rows of the current file are left to the same-file pass."""
    assert choose_definers([_row("api.py")], "api.py", frozenset()) == []


def test_a_definition_tsc_wrote_twice_is_one_definer_its_declaration():
    """`lib/Apply.js` and `lib/Apply.d.ts` both define `ap`: the declaration is shown, once;
    a script without a declaration beside it stays."""
    rows = [_row("lib/Apply.js", name="ap"), _row("lib/Apply.d.ts", line=9, name="ap"), _row("lib/Chain.js", name="ap")]
    assert choose_definers(rows, "lib/EitherT.js", frozenset()) == [rows[1], rows[2]]
