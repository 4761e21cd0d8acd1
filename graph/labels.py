"""Breaking label text into lines: at spaces and between CJK characters, never inside a word.

Width is counted in display cells (a CJK character takes two). A line may
break at a space, between two CJK characters, or where CJK text meets a Latin
word; a Latin word or an identifier (``torch.OutOfMemoryError``,
``--max-model-len``) stays whole. CJK closing punctuation (``，。）：``) never
starts a line and opening punctuation (``（“``) never ends one. Only a token
wider than ``max_cells`` is broken, after a ``.``, ``/``, ``_``, ``-`` or ``:``
where it has one. Text that does not fit in the lines allowed ends in ``…``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

ELLIPSIS = "…"
_CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
_TOKEN = re.compile(rf"\s+|[{_CJK}]|[^\s{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")
_NO_LINE_START = set("，。、：；！？）」』】〉》”’…・～,.:;!?)]}%")
_NO_LINE_END = set("（「『【〈《“‘([{")
_SOFT_BREAK_AFTER = "./_-:\\"


def cell_width(text: str) -> int:
    """Display width: 2 cells for wide and full-width characters, 1 for the rest."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@dataclass
class _Atom:
    text: str
    space_before: bool
    cjk: bool

    @property
    def width(self) -> int:
        return cell_width(self.text)


def _atoms(text: str) -> list[_Atom]:
    """Pieces no line may break inside, each saying whether a space precedes it."""
    atoms: list[_Atom] = []
    space = False
    for token in _TOKEN.findall(text):
        if token.isspace():
            space = True
            continue
        cjk = bool(_IS_CJK.fullmatch(token))
        previous = atoms[-1] if atoms else None
        glue = (
            previous is not None
            and not space
            and (
                token[0] in _NO_LINE_START
                or previous.text[-1] in _NO_LINE_END
                or not (cjk or previous.cjk)  # two Latin pieces with nothing between
            )
        )
        if glue and previous is not None:
            previous.text += token
            previous.cjk = previous.cjk and cjk
        else:
            atoms.append(_Atom(token, space and bool(atoms), cjk))
        space = False
    return atoms


def _split_long(atom: _Atom, max_cells: int) -> list[_Atom]:
    """A piece wider than ``max_cells``, cut after a soft break character where it has one."""
    pieces: list[_Atom] = []
    rest = atom.text
    while cell_width(rest) > max_cells:
        fits = 0
        while fits < len(rest) and cell_width(rest[: fits + 1]) <= max_cells:
            fits += 1
        soft = max((rest.rfind(ch, 0, fits) for ch in _SOFT_BREAK_AFTER), default=-1)
        cut = soft + 1 if soft > 0 else max(1, fits)
        pieces.append(_Atom(rest[:cut], atom.space_before and not pieces, False))
        rest = rest[cut:]
    pieces.append(_Atom(rest, atom.space_before and not pieces, atom.cjk))
    return pieces


def _fill(atoms: list[_Atom], cells: int) -> list[list[_Atom]]:
    lines: list[list[_Atom]] = []
    line: list[_Atom] = []
    width = 0
    for atom in atoms:
        need = atom.width + (1 if atom.space_before and line else 0)
        if line and width + need > cells:
            lines.append(line)
            line = [atom]
            width = atom.width
        else:
            line.append(atom)
            width += need
    if line:
        lines.append(line)
    return lines


def _join(line: list[_Atom]) -> str:
    return "".join((" " if a.space_before and i else "") + a.text for i, a in enumerate(line))


def _with_ellipsis(line: list[_Atom], cells: int) -> str:
    """The last line shown, ending in …: whole atoms are dropped until it fits ``cells``
    (a single atom stays whole, as a word wider than a line does)."""
    line = list(line)
    while len(line) > 1 and cell_width(_join(line)) + 1 > cells:
        line.pop()
    return _join(line) + ELLIPSIS


def wrap_label(
    text: str, *, cells: int = 20, lines: int = 3, max_cells: int | None = None
) -> list[str]:
    """``text`` as at most ``lines`` lines of about ``cells`` cells (see the module docstring).

    A word wider than ``cells`` gets a line of its own, whole, up to ``max_cells``
    (twice ``cells`` unless given).
    """
    limit = max(cells, max_cells if max_cells is not None else 2 * cells)
    atoms = [piece for atom in _atoms(text) for piece in _split_long(atom, limit)]
    filled = _fill(atoms, cells)
    if len(filled) <= lines:
        return [_join(line) for line in filled]
    shown = [_join(line) for line in filled[: lines - 1]]
    return [*shown, _with_ellipsis(filled[lines - 1], cells)]


def shorten(text: str, cells: int) -> str:
    """``text`` on one line of at most ``cells`` cells, cut at a word or CJK boundary with …"""
    if cell_width(text) <= cells and "\n" not in text:
        return text
    wrapped = wrap_label(text, cells=cells, lines=1, max_cells=max(1, cells - 1))
    return wrapped[0] if wrapped else ""
