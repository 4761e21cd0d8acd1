"""The error record: errkb's unit of knowledge, as pydantic models.

The native JSON form is the seed example of the product brief, field for
field, written back in the seed's key order; keys the model does not know are
kept verbatim (``extra``), and nested objects write back the keys they were
given, so a record survives an import → export round trip unchanged.
Translation entries also keep the order of their keys.

Translations are generic over locale: any ``<field>_<locale>`` key of a
user-read field (``signature_zh``, ``root_cause_ja``, ``dead_ends_pt_br``) is
collected into :attr:`Record.translations` and written back under the same
key, after the field it translates. What each key holds is described in
:mod:`bot.records.translation`; :meth:`Record.localized` gives every text in a
locale with per-field fallback (:mod:`bot.records.localized`).

Modules: ``model`` (the record and its items), ``translation`` (the
``<field>_<locale>`` forms), ``localized`` (a record read in one locale),
``given`` (translation objects that write back what they were given, in order).
"""

from bot.records.localized import (
    LocalDeadEnd,
    LocalLink,
    LocalRecord,
    LocalVersion,
    LocalWorkaround,
    Text,
    localize,
)
from bot.records.model import (
    ID_PATTERN,
    NATIVE_ORDER,
    STORED,
    TRANSLATABLE,
    TRANSLATABLE_LIST,
    TRANSLATABLE_TEXT,
    DeadEnd,
    Link,
    LinkItem,
    Problem,
    Rate,
    Record,
    Resolvable,
    TransitionGraph,
    VersionInfo,
    Workaround,
    link_condition,
    link_probability,
    link_target,
    ranked_workarounds,
    record_problems,
    validation_problems,
)
from bot.records.translation import (
    LINK_KINDS,
    LOCALE_PATTERN,
    TRANSLATED,
    TRANSLATION_KEY,
    DeadEndText,
    GraphText,
    LinkText,
    Translation,
    VersionText,
    WorkaroundText,
    locale_chain,
    normalise_locale,
    source_texts,
    translated_texts,
    translation_key,
)

__all__ = [
    "ID_PATTERN",
    "LINK_KINDS",
    "LOCALE_PATTERN",
    "NATIVE_ORDER",
    "STORED",
    "TRANSLATABLE",
    "TRANSLATABLE_LIST",
    "TRANSLATABLE_TEXT",
    "TRANSLATED",
    "TRANSLATION_KEY",
    "DeadEnd",
    "DeadEndText",
    "GraphText",
    "Link",
    "LinkItem",
    "LinkText",
    "LocalDeadEnd",
    "LocalLink",
    "LocalRecord",
    "LocalVersion",
    "LocalWorkaround",
    "Problem",
    "Rate",
    "Record",
    "Resolvable",
    "Text",
    "TransitionGraph",
    "Translation",
    "VersionInfo",
    "VersionText",
    "Workaround",
    "WorkaroundText",
    "link_condition",
    "link_probability",
    "link_target",
    "ranked_workarounds",
    "locale_chain",
    "localize",
    "normalise_locale",
    "record_problems",
    "source_texts",
    "translated_texts",
    "translation_key",
    "validation_problems",
]
