"""What is not translated: per record for a rendered answer, per locale for the knowledge base.
Pure.

:func:`fallen_back` tells a renderer which of the texts it shows are in
another language than the reader's, and :func:`fallback_note` says so in the
reader's words, naming those texts. :func:`coverage` is the completeness check
behind ``errkb i18n check``: for each locale, every record's texts that have
words but no translation, as record paths (``dead_ends[0].why_fails``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.i18n import t
from bot.i18n.problems import field_label, language_name
from bot.records import LocalRecord, Record, localize, source_texts
from bot.records.localized import has_words

_INDEX = re.compile(r"\[\d+\]")


def fallen_back(
    record: Record | LocalRecord, locale: str, shown: Iterable[str] | None = None
) -> tuple[str, ...]:
    """Paths of the texts among ``shown`` (paths or prefixes such as ``"workarounds[0]"``;
    every text when ``None``) that a reader in ``locale`` sees in another language."""
    view = record if isinstance(record, LocalRecord) else localize(record, locale)
    return view.fell_back(shown)


def _field_kind(path: str) -> str:
    """``workarounds[3].how`` → ``workarounds[0].how``: the same text of every item reads as one."""
    return _INDEX.sub("[0]", path)


def fallback_note(view: LocalRecord, shown: Iterable[str] | None = None) -> str | None:
    """ "Not yet translated, shown in English: root cause, how to apply it …" in the reader's
    locale, naming each kind of text that fell back once; ``None`` when nothing did."""
    paths = view.fell_back(shown)
    if not paths:
        return None
    locale = view.locale
    kinds = dict.fromkeys(_field_kind(p) for p in paths)
    names = dict.fromkeys(_kind_label(k, locale) for k in kinds)
    own = view.record.locale
    return t(
        locale,
        "fallback.note",
        language=language_name(locale, own),
        fields=t(locale, "field.list.separator").join(names),
    )


def _kind_label(kind: str, locale: str) -> str:
    """A kind of text without item numbers: ``workarounds[0].how`` → "how to apply it"."""
    head, _, part = kind.partition(".")
    if head == "transition_graph":
        head, _, part = part.partition(".")
    head = head.split("[")[0]
    if not part or head == "os_specific":
        return field_label(head, locale)
    return t(locale, "field.part", part=field_label(part, locale), whole=field_label(head, locale))


# -- the completeness check ------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """A record's texts with no translation in ``locale``."""

    record_id: str
    locale: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class LocaleCoverage:
    """How much of the knowledge base reads in ``locale``."""

    locale: str
    records: int  # records not written in this language
    complete: int  # ... of which every text is translated
    texts: int  # texts with words in those records
    translated: int
    gaps: tuple[Gap, ...]

    @property
    def percent(self) -> float:
        return 100.0 if not self.texts else 100.0 * self.translated / self.texts


def _same_language(a: str, b: str) -> bool:
    return a.split("_")[0] == b.split("_")[0]


def record_coverage(record: Record, locale: str) -> tuple[int, tuple[str, ...]] | None:
    """One record's share of :func:`locale_coverage`: how many of its texts have words, and
    the paths of those with no translation in ``locale``; None when it is written in that
    language (a reader of it sees no other)."""
    if _same_language(record.locale, locale):
        return None
    texts = sum(1 for text in source_texts(record).values() if has_words(text))
    return texts, localize(record, locale).fallbacks


def locale_coverage(records: Sequence[Record], locale: str) -> LocaleCoverage:
    """What a reader in ``locale`` would see in another language, record by record."""
    others = 0
    gaps = []
    texts = missing = 0
    for record in records:
        counted = record_coverage(record, locale)
        if counted is None:
            continue
        others += 1
        texts += counted[0]
        paths = counted[1]
        missing += len(paths)
        if paths:
            gaps.append(Gap(record.id, locale, paths))
    return LocaleCoverage(locale, others, others - len(gaps), texts, texts - missing, tuple(gaps))


def coverage(records: Sequence[Record], locales: Iterable[str]) -> tuple[LocaleCoverage, ...]:
    """:func:`locale_coverage` for each of ``locales``, in the order given."""
    return tuple(locale_coverage(records, locale) for locale in locales)


__all__ = [
    "Gap",
    "LocaleCoverage",
    "coverage",
    "fallback_note",
    "fallen_back",
    "locale_coverage",
    "record_coverage",
]
