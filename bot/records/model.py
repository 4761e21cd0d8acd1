"""The record model: :class:`Record`, its nested items, and its validation problems."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from bot.match.regexcheck import regex_issue
from bot.records.clean import clean_value
from bot.records.localized import LocalRecord, localize
from bot.records.translation import (
    FORM_TAGS,
    LINK_KINDS,
    LOCALE_PATTERN,
    TRANSLATED,
    TRANSLATION_KEY,
    Translation,
    check_translations,
    normalise_locale,
)

Rate = Annotated[float, Field(ge=0.0, le=1.0)]
Resolvable = Literal["true", "partial", "false"]

#: Fields :meth:`Record.text` gives as one text (or one text per item).
TRANSLATABLE_TEXT = ("signature", "root_cause")
TRANSLATABLE_LIST = ("workarounds", "dead_ends")
TRANSLATABLE = TRANSLATABLE_TEXT + TRANSLATABLE_LIST

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+\-]*(?:/[A-Za-z0-9][A-Za-z0-9._+\-]*)*$")
#: The seed example writes ``root_cause_<locale>`` after ``root_cause_type``.
_TRANSLATIONS_AFTER = {"root_cause": "", "root_cause_type": "root_cause"}
#: Validation context of a record read back from the database: what was accepted when
#: it was stored is loaded as it is, whatever today's checks say (the match index then
#: skips a regex it cannot run).
STORED = {"stored": True}

#: Native fields in the order the seed example writes them.
NATIVE_ORDER = (
    "id",
    "signature",
    "regex",
    "domain",
    "category",
    "subcategory",
    "root_cause",
    "root_cause_type",
    "versions",
    "os_specific",
    "dead_ends",
    "workarounds",
    "transition_graph",
    "official_doc_url",
    "official_doc_section",
    "error_code",
    "verification_tier",
    "confidence",
    "fix_success_rate",
    "resolvable",
    "first_seen",
    "last_confirmed",
    "last_updated",
    "evidence_count",
    "tags",
    "locale",
    "aliases",
)


class _Item(BaseModel):
    """Nested objects keep keys errkb does not model (``tradeoff`` …) and write back
    exactly the keys they were given: no invented defaults on export. Keys are written
    in the seed's order (unknown ones last); remembering each item's own order would
    cost a fifth of the time an import spends validating."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    @model_serializer(mode="wrap")
    def _given_keys(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        fields = type(self).model_fields
        return {k: v for k, v in data.items() if k not in fields or k in self.model_fields_set}


class VersionInfo(_Item):
    version: str
    introduced: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    behavior_change: str | None = None
    status: str = "active"


class DeadEnd(_Item):
    action: str = ""
    why_fails: str = ""
    fail_rate: Rate | None = None
    condition: str = ""
    sources: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _has_text(self) -> DeadEnd:
        if not self.action.strip() and not self.why_fails.strip():
            raise PydanticCustomError(
                "dead_end_empty", "a dead end needs an action or a why_fails text"
            )
        return self

    @property
    def text(self) -> str:
        """What to show: the action, or ``why_fails`` when the action is empty."""
        return self.action.strip() or self.why_fails.strip()


class Workaround(_Item):
    action: str = Field(min_length=1)
    success_rate: Rate | None = None
    how: str = ""
    condition: str = ""
    sources: list[str] = Field(default_factory=list)


class Link(_Item):
    """A transition-graph link written as an object."""

    error_id: str = Field(min_length=1)
    probability: Rate | None = None
    condition: str | None = None


LinkItem = str | Link


def ranked_workarounds(record: Record) -> list[int]:
    """Workaround positions, best curated success rate first (record order breaks ties):
    the one order every front end shows them in."""
    return sorted(
        range(len(record.workarounds)),
        key=lambda i: (-(record.workarounds[i].success_rate or 0.0), i),
    )


def link_target(item: LinkItem) -> str:
    return item if isinstance(item, str) else item.error_id


def link_probability(item: LinkItem) -> float | None:
    return None if isinstance(item, str) else item.probability


def link_condition(item: LinkItem) -> str | None:
    return None if isinstance(item, str) else item.condition


class TransitionGraph(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True)

    leads_to: list[LinkItem] = Field(default_factory=list)
    preceded_by: list[LinkItem] = Field(default_factory=list)
    frequently_confused_with: list[LinkItem] = Field(default_factory=list)

    @field_validator("leads_to", "preceded_by", "frequently_confused_with", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value


class Record(BaseModel):
    """One error record in native form (see the module docstring)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    id: str = Field(min_length=1, max_length=300)
    signature: str = Field(min_length=1)
    regex: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    category: str = ""
    subcategory: str | None = None
    root_cause: str = ""
    root_cause_type: str | None = None
    versions: list[VersionInfo] = Field(default_factory=list)
    os_specific: dict[str, Any] = Field(default_factory=dict)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    workarounds: list[Workaround] = Field(default_factory=list)
    transition_graph: TransitionGraph = Field(default_factory=TransitionGraph)
    official_doc_url: str | None = None
    official_doc_section: str | None = None
    error_code: str | None = None
    verification_tier: str = "unverified"
    confidence: Rate | None = None
    fix_success_rate: Rate | None = None
    resolvable: Resolvable = "true"
    first_seen: date | None = None
    last_confirmed: date | None = None
    last_updated: date | None = None
    evidence_count: int = Field(default=0, ge=0)
    tags: list[str] = Field(default_factory=list)
    locale: str = "en"
    aliases: list[str] = Field(default_factory=list)
    translations: dict[str, Translation] = Field(default_factory=dict)

    # -- parsing ---------------------------------------------------------

    @model_validator(mode="before")
    @classmethod
    def _collect_translations(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        # texts as every database takes them; a stored record was cleaned when it came in
        data = dict(data if (info.context or {}).get("stored") else clean_value(data))
        translations: dict[str, Any] = {
            loc: dict(t) if isinstance(t, dict) else t.model_dump(exclude_none=True)
            for loc, t in (data.pop("translations", None) or {}).items()
        }
        for key in [k for k in data if isinstance(k, str)]:
            found = TRANSLATION_KEY.match(key)
            if found and key not in cls.model_fields:
                name, locale = found.groups()
                translations.setdefault(locale, {})[name] = data.pop(key)
        data["translations"] = translations
        return data

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise PydanticCustomError(
                "record_id_shape",
                "expected slash-separated segments of letters, digits, '.', '_', '+' or '-'"
                " (e.g. 'llm/vllm-block-manager-out-of-memory')",
            )
        return value

    @field_validator("regex")
    @classmethod
    def _regex_compiles(cls, value: str, info: ValidationInfo) -> str:
        if info.context and info.context.get("stored"):
            return value
        issue = regex_issue(value)
        if issue is not None:  # the English sentence, and what each locale's catalog needs
            raise PydanticCustomError(
                issue.kind, str(issue).replace("{", "{{").replace("}", "}}"), issue.params
            )
        return value

    @field_validator("resolvable", mode="before")
    @classmethod
    def _resolvable_text(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "true" if value else "false"
        return value

    @field_validator("locale")
    @classmethod
    def _locale_shape(cls, value: str) -> str:
        value = normalise_locale(value)
        if not LOCALE_PATTERN.match(value):
            raise PydanticCustomError(
                "locale_shape", "expected a locale code such as 'en', 'zh' or 'pt_br'"
            )
        return value

    @model_validator(mode="after")
    def _translations_fit(self) -> Record:
        check_translations(self)
        return self

    # -- writing ---------------------------------------------------------

    @model_serializer(mode="wrap")
    def _flatten(self, handler: Any) -> dict[str, Any]:
        plain = handler(self)
        translations = plain.pop("translations", {}) or {}
        out: dict[str, Any] = {}
        for key in NATIVE_ORDER:
            if key in plain:  # model_dump(exclude_none=True) and the like leave fields out
                out[key] = plain.pop(key)
            name = _TRANSLATIONS_AFTER.get(key, key)
            if name in TRANSLATED:
                for locale in sorted(translations):
                    value = translations[locale].get(name)
                    if value is not None:
                        out[f"{name}_{locale}"] = value
        out.update(plain)  # extra keys, verbatim
        return out

    def to_native(self) -> dict[str, Any]:
        """The record as native JSON-ready data (dates as ISO days)."""
        return self.model_dump(mode="json")

    # -- reading ---------------------------------------------------------

    @property
    def extra(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})

    def links(self) -> list[tuple[str, LinkItem]]:
        """Every transition-graph item as ``(kind, item)``, in record order."""
        graph = self.transition_graph
        return [(kind, item) for kind in LINK_KINDS for item in getattr(graph, kind)]

    def localized(self, locale: str) -> LocalRecord:
        """Every text of the record in ``locale``, field by field, with what fell back
        (see :mod:`bot.records.localized`)."""
        return localize(self, locale)

    def text(self, field: str, locale: str) -> tuple[Any, str]:
        """``signature``, ``root_cause``, workaround actions or dead-end texts in ``locale``.

        Returns ``(value, locale_used)``; list fields fall back item by item, and
        ``locale_used`` is the record's own locale when any item fell back.
        :meth:`localized` gives every field, with each text's own locale.
        """
        view = self.localized(locale)
        if field in TRANSLATABLE_TEXT:
            text = view.texts[field]
            return text.value, text.locale
        if field not in TRANSLATABLE_LIST:
            raise KeyError(field)
        texts = (
            [w.action for w in view.workarounds]
            if field == "workarounds"
            else [d.text for d in view.dead_ends]
        )
        if any(t.fallback for t in texts):
            return [t.value for t in texts], self.locale
        return [t.value for t in texts], texts[0].locale if texts else view.locale


# -- validation problems -------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a record: where, what kind (pydantic's error type or
    errkb's own), the values the message names, and the message in English."""

    path: str  # "workarounds[0].success_rate", "workarounds_zh[1]", "(record)"
    kind: str  # "missing", "less_than_equal", "regex_invalid", ...
    message: str
    params: Mapping[str, Any] = field(default_factory=dict)


_NOT_IN_PATH = re.compile(r"^(?:function-\w+\[.*\]|str|Link|DeadEnd|Workaround)$")


def _path(loc: tuple[int | str, ...]) -> str:
    if len(loc) >= 3 and loc[0] == "translations":  # written as <field>_<locale>
        loc = (f"{loc[2]}_{loc[1]}", *loc[3:])
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in FORM_TAGS or _NOT_IN_PATH.match(part):
            continue
        else:
            path += f".{part}" if path else part
    return path or "(record)"


def _one_union_member(errors: list[Any]) -> list[Any]:
    """A link that is neither an id nor a valid object: keep what the object form says."""
    objects = {tuple(e["loc"][: e["loc"].index("Link")]) for e in errors if "Link" in e["loc"]}
    return [
        e
        for e in errors
        if not (e["loc"] and e["loc"][-1] == "str" and tuple(e["loc"][:-1]) in objects)
    ]


def record_problems(exc: ValidationError) -> list[Problem]:
    """What a pydantic error says about a record, one :class:`Problem` per error."""
    problems = []
    for err in _one_union_member(exc.errors(include_url=False)):
        message = err["msg"]
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        params = {
            k: v for k, v in (err.get("ctx") or {}).items() if k != "error" or isinstance(v, str)
        }
        path = _path(err["loc"])
        if path == "(record)" and isinstance(params.get("key"), str):
            path = params["key"]  # a translation that does not fit: name its key
        problems.append(Problem(path, err["type"], message, params))
    return problems


def validation_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """``(field_path, message)`` pairs from a pydantic error, paths like
    ``workarounds[0].success_rate``."""
    return [(p.path, p.message) for p in record_problems(exc)]
