"""The documentation a user reads says what the program does: docs/cli.md names every subcommand and option
of the argument parser and no option it lacks; the README stays a landing page whose links resolve."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from tui_adventure.cli.arguments import build_parser

from conftest import ROOT

CLI_DOC = ROOT / "docs" / "cli.md"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, options) for every leaf subcommand: ``("export", "pddl"), {"--out"}``."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        options = {s for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS
                   for s in a.option_strings if s.startswith("--") and s != "--help"}
        yield path, options
        return
    for action in subparsers:
        for name, child in action.choices.items():
            yield from _commands(child, (*path, name))


def _sections(text: str) -> dict[str, str]:
    """Each command a heading names (``### `adventure run WORLD...` ``: ``run``) with the text up to the next
    heading; a heading may name two (``score`` and ``eval``)."""
    sections: dict[str, str] = {}
    names: list[str] = []
    lines: list[str] = []
    for line in [*text.splitlines(), "#"]:
        if line.startswith("#"):
            for name in names:
                sections[name] = "\n".join(lines)
            names = [m.strip() for m in re.findall(r"`adventure ((?:[a-z]+ ?)+)", line)]
            lines = []
        else:
            lines.append(line)
    return sections


def _section_for(sections: dict[str, str], path: tuple[str, ...]) -> str | None:
    for length in range(len(path), 0, -1):
        if " ".join(path[:length]) in sections:
            return sections[" ".join(path[:length])]
    return None


def test_cli_doc_names_every_subcommand_and_option():
    text = CLI_DOC.read_text(encoding="utf-8")
    sections = _sections(text)
    missing = []
    for path, options in _commands(build_parser()):
        if f"adventure {' '.join(path)}" not in text:
            missing.append(f"adventure {' '.join(path)}")
            continue
        section = _section_for(sections, path)
        if section is None:
            missing.append(f"a heading for adventure {' '.join(path)}")
            continue
        missing += [f"adventure {' '.join(path)} {flag}" for flag in sorted(options)
                    if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", section)]
    assert not missing, f"docs/cli.md does not mention: {', '.join(missing)}"


def test_cli_doc_names_no_option_the_parser_lacks():
    known: dict[str, set[str]] = {}
    for path, options in _commands(build_parser()):
        known.setdefault(path[0], set()).update(options)
    stale = []
    for heading, section in _sections(CLI_DOC.read_text(encoding="utf-8")).items():
        top = heading.split()[0]
        if top not in known:
            stale.append(f"adventure {heading}")
            continue
        stale += [f"adventure {heading} {flag}" for flag in sorted(set(FLAG.findall(section)) - known[top])]
    assert not stale, f"docs/cli.md names what the parser does not have: {', '.join(stale)}"


def test_readme_is_a_short_landing_page_whose_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 100
    lines = [ln for ln in readme.splitlines() if ln.strip() and not ln.startswith("#")]
    assert "pip install" in readme.split("```bash", 1)[1].split("```", 1)[0], "the set-up commands come first"
    assert lines
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README.md links to {target}, which the repository does not hold"


NOT_THE_REPOSITORY = {".git", ".venv", "venv", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache",
                      ".ruff_cache"}


def markdown_names(root: Path) -> set[str]:
    """The names of the ``*.md`` files under ``root``, in one walk that skips what the repository does not
    hold (a venv made in the clone, caches, git's own folder)."""
    names = set()
    for _, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in NOT_THE_REPOSITORY]
        names.update(f for f in files if f.endswith(".md"))
    return names


def test_docs_cite_only_documents_the_repository_holds():
    """A reader who follows a reference finds it: every ``*.md`` a doc or module names is in the repository."""
    named = re.compile(r"(?<![\w/.-])([A-Za-z_][\w/.-]*\.md)\b")
    missing = []
    anywhere = markdown_names(ROOT)
    for path in [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "tui_adventure").rglob("*.py"),
                 *(ROOT / "benchmarks").glob("*.md")]:
        for name in set(named.findall(path.read_text(encoding="utf-8"))):
            candidates = [ROOT / name, path.parent / name, ROOT / "docs" / name]
            if not any(c.exists() for c in candidates) and name.rsplit("/", 1)[-1] not in anywhere:
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, "documents named but not in the repository: " + ", ".join(sorted(missing))
