"""The package's folders read as its outline: what a newcomer opening them would notice.

A root of a few modules beside packages named for what they hold, an engine
whose parts are sub-packages, no module that takes two screens to scroll past,
and no two modules that need each other (not even for type checking), so any
one of them can be read, tested and moved on its own.
"""

from pathlib import Path

import grimp

from conftest import ROOT

PACKAGE = ROOT / "tui_adventure"


def modules_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.py"))


def test_the_root_and_the_engine_hold_few_modules_beside_their_packages():
    root, engine = modules_in(PACKAGE), modules_in(PACKAGE / "engine")
    assert len(root) <= 6, root
    assert len(engine) <= 12, engine


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, long


def test_no_two_modules_import_each_other_even_round_a_circle():
    graph = grimp.build_graph("tui_adventure", exclude_type_checking_imports=False)
    circles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                circles.add(" -> ".join((module, *back)))
    assert not circles, sorted(circles)
