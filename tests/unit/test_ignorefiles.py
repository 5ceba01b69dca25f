"""ignorefiles: the prefilter never changes a verdict, and levels read as git reads them."""

from __future__ import annotations

import pathspec
from hypothesis import given
from hypothesis import strategies as st

from skillc.project import ignorefiles

SEGMENT = st.sampled_from(["a", "b", "build", "x.log", "keep.txt", "node_modules", "__pycache__", "m.pyc"])
PATTERN = st.sampled_from(
    [
        "*.log",
        "build/",
        "/a",
        "a/b",
        "!keep.txt",
        "**/b",
        "node_modules/",
        "*.py[cod]",
        "!x.log",
        "#c",
        "",
        "a/**",
    ]
)


@given(st.lists(PATTERN, max_size=6), st.lists(SEGMENT, min_size=1, max_size=4), st.booleans())
def test_the_prefilter_agrees_with_pathspec(lines: list[str], parts: list[str], is_dir: bool) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    path = "/".join(parts) + ("/" if is_dir else "")
    fast = ignorefiles._level(spec)
    assert fast.verdict(path) == spec.check_file(path).include


def test_a_folder_listed_without_ignore_files_is_not_asked(tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.log\n")
    rules = ignorefiles.rules_for(tmp_path, tmp_path, ())
    listed = rules.listing(lambda path: [] if path.endswith("sub") else ["sub"])
    listed(str(tmp_path))
    listed(str(tmp_path / "sub"))  # listed empty: the .gitignore on disk is not read
    assert not rules.ignored("sub/x.log", False) and rules.read == []
