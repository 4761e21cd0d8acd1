"""A record as read in one locale: every text, field by field, and what fell back.

:func:`localize` looks each text up in the asked locale, then its base
language (``zh_tw`` → ``zh``), then takes the record's own text. Each
:class:`Text` says which language it is in and whether it *fell back*: the
source has words but the asked language has no translation of them. Texts
without a letter (empty, or a placeholder such as ``...``) never fall back:
there is nothing to translate. The paths in
:attr:`LocalRecord.fallbacks` are those of validation errors and of the
completeness check (``workarounds[1].how``), in reading order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.records.translation import (
    LINK_KINDS,
    TRANSLATED,
    locale_chain,
    source_texts,
    translated_texts,
)

if TYPE_CHECKING:
    from bot.records.model import DeadEnd, LinkItem, Record, VersionInfo, Workaround


@dataclass(frozen=True)
class Text:
    """One text to show: its words, their language, and whether it fell back."""

    value: str
    locale: str
    fallback: bool = False

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class LocalWorkaround:
    position: int
    item: Workaround  # rates and sources, untranslated
    action: Text
    how: Text
    condition: Text


@dataclass(frozen=True)
class LocalDeadEnd:
    position: int
    item: DeadEnd
    action: Text
    why_fails: Text
    condition: Text

    @property
    def text(self) -> Text:
        """What to show first: the action, or ``why_fails`` when the action is empty."""
        return self.action if self.item.action.strip() else self.why_fails

    @property
    def why(self) -> Text | None:
        """``why_fails`` when it is not already :attr:`text`, and not empty."""
        shown = self.item.action.strip() and self.item.why_fails.strip()
        return self.why_fails if shown else None


@dataclass(frozen=True)
class LocalVersion:
    item: VersionInfo
    behavior_change: Text


@dataclass(frozen=True)
class LocalLink:
    kind: str
    position: int
    target: str
    item: LinkItem
    condition: Text
    distinction: Text


@dataclass(frozen=True)
class LocalRecord:
    """``record``'s texts in ``locale`` (normalised), by path and by shape."""

    record: Record
    locale: str
    texts: Mapping[str, Text]

    def get(self, path: str) -> Text:
        return self.texts[path]

    @property
    def signature(self) -> Text:
        return self.texts["signature"]

    @property
    def root_cause(self) -> Text:
        return self.texts["root_cause"]

    def _parts(self, field: str, i: int) -> list[Text]:
        """Item ``i``'s translatable parts, in :data:`TRANSLATED` order."""
        return [self.texts[f"{field}[{i}].{part}"] for part in TRANSLATED[field]]

    @property
    def workarounds(self) -> tuple[LocalWorkaround, ...]:
        return tuple(
            LocalWorkaround(i, w, *self._parts("workarounds", i))
            for i, w in enumerate(self.record.workarounds)
        )

    @property
    def dead_ends(self) -> tuple[LocalDeadEnd, ...]:
        return tuple(
            LocalDeadEnd(i, d, *self._parts("dead_ends", i))
            for i, d in enumerate(self.record.dead_ends)
        )

    @property
    def versions(self) -> tuple[LocalVersion, ...]:
        return tuple(
            LocalVersion(v, self.texts[f"versions[{i}].behavior_change"])
            for i, v in enumerate(self.record.versions)
        )

    @property
    def os_specific(self) -> dict[str, Text]:
        """The text values of ``os_specific`` (other values are not text to read)."""
        return {
            key: self.texts[f"os_specific.{key}"]
            for key in self.record.os_specific
            if f"os_specific.{key}" in self.texts
        }

    def links(self, kind: str | None = None) -> tuple[LocalLink, ...]:
        """Transition-graph links (of one kind, or all) with their texts in this locale."""
        graph = self.record.transition_graph
        out = []
        for k in (kind,) if kind else LINK_KINDS:
            for i, item in enumerate(getattr(graph, k)):
                head = f"transition_graph.{k}[{i}]"
                target = item if isinstance(item, str) else item.error_id
                out.append(
                    LocalLink(
                        k,
                        i,
                        target,
                        item,
                        self.texts[f"{head}.condition"],
                        self.texts[f"{head}.distinction"],
                    )
                )
        return tuple(out)

    @property
    def fallbacks(self) -> tuple[str, ...]:
        """Paths of every text shown in another language than the one asked for."""
        return tuple(path for path, text in self.texts.items() if text.fallback)

    def fell_back(self, shown: Iterable[str] | None = None) -> tuple[str, ...]:
        """:attr:`fallbacks` among the texts ``shown``: paths or their prefixes
        (``"signature"``, ``"workarounds[0]"``, ``"dead_ends"``); all when ``None``."""
        if shown is None:
            return self.fallbacks
        prefixes = tuple(shown)
        return tuple(path for path in self.fallbacks if any(_under(path, p) for p in prefixes))


def has_words(text: str) -> bool:
    """Whether ``text`` has anything to translate (a letter in any script)."""
    return any(ch.isalpha() for ch in text)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def _same_language(a: str, b: str) -> bool:
    return a.split("_")[0] == b.split("_")[0]


def localize(record: Record, locale: str) -> LocalRecord:
    """Every user-read text of ``record`` in ``locale``, falling back field by field."""
    chain = locale_chain(locale)
    wanted = chain[0]
    found: list[tuple[str, Mapping[str, str] | None]] = []
    for loc in chain:
        if loc == record.locale:
            found.append((loc, None))  # the record's own text
            break
        if loc in record.translations:
            found.append((loc, translated_texts(record.translations[loc], record)))
    texts: dict[str, Text] = {}
    for path, source in source_texts(record).items():
        texts[path] = _pick(path, source, found, record.locale, wanted)
    return LocalRecord(record, wanted, texts)


def _pick(
    path: str,
    source: str,
    found: list[tuple[str, Mapping[str, str] | None]],
    own: str,
    wanted: str,
) -> Text:
    if not has_words(source):
        return Text(source, wanted)
    for loc, given in found:
        if given is None:
            return Text(source, loc)
        if path in given:
            return Text(given[path], loc)
    return Text(source, own, fallback=not _same_language(own, wanted))


__all__ = [
    "has_words",
    "LocalDeadEnd",
    "LocalLink",
    "LocalRecord",
    "LocalVersion",
    "LocalWorkaround",
    "Text",
    "localize",
]
