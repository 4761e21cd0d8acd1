"""The error record: errkb's unit of knowledge, as pydantic models.

The native JSON form is the seed example of the product brief, field for
field. Translations are generic over locale: any ``<field>_<locale>`` key of a
translatable field (``signature_zh``, ``root_cause_ja``, ``workarounds_pt_br``)
is collected into :attr:`Record.translations` and written back out under the
same key. Keys the model does not know are kept verbatim (``extra``), so a
record survives an import → export round trip unchanged.
"""

from __future__ import annotations

import re
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

from bot.match.regexcheck import regex_problem

Rate = Annotated[float, Field(ge=0.0, le=1.0)]
Resolvable = Literal["true", "partial", "false"]

#: Fields that may carry ``_<locale>`` translations, and their shape.
TRANSLATABLE_TEXT = ("signature", "root_cause")
TRANSLATABLE_LIST = ("workarounds", "dead_ends")
TRANSLATABLE = TRANSLATABLE_TEXT + TRANSLATABLE_LIST

_LOCALE = r"[a-z]{2,3}(?:_[a-z]{2,4})?"
_TRANSLATION_KEY = re.compile(rf"^({'|'.join(TRANSLATABLE)})_({_LOCALE})$")
LOCALE_PATTERN = re.compile(rf"^{_LOCALE}$")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+\-]*(?:/[A-Za-z0-9][A-Za-z0-9._+\-]*)*$")
#: The seed example writes ``root_cause_<locale>`` after ``root_cause_type``.
_TRANSLATIONS_AFTER = {"root_cause": "", "root_cause_type": "root_cause"}
LINK_KINDS = ("leads_to", "preceded_by", "frequently_confused_with")
#: Validation context of a record read back from the database: what an earlier
#: errkb accepted is loaded as it is (the match index then skips a regex it cannot run).
STORED = {"stored": True}

#: Native fields in the order the seed example writes them.
NATIVE_ORDER = (
    "id", "signature", "regex", "domain", "category", "subcategory",
    "root_cause", "root_cause_type", "versions", "os_specific", "dead_ends",
    "workarounds", "transition_graph", "official_doc_url", "official_doc_section",
    "error_code", "verification_tier", "confidence", "fix_success_rate",
    "resolvable", "first_seen", "last_confirmed", "last_updated",
    "evidence_count", "tags", "locale", "aliases",
)  # fmt: skip


def normalise_locale(value: str) -> str:
    """``zh-CN`` → ``zh_cn``: the form used in ``*_<locale>`` keys."""
    return value.strip().replace("-", "_").lower()


class _Item(BaseModel):
    """Nested objects keep keys errkb does not model (``tradeoff`` …) and write back
    exactly the keys they were given: no invented defaults on export."""

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
            raise ValueError("a dead end needs an action or a why_fails text")
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


class Translation(BaseModel):
    """A record's text in one locale; ``None`` means not translated."""

    model_config = ConfigDict(extra="forbid")

    signature: str | None = None
    root_cause: str | None = None
    workarounds: list[str] | None = None
    dead_ends: list[str] | None = None


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
    def _collect_translations(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        translations: dict[str, dict[str, Any]] = {
            loc: dict(t) if isinstance(t, dict) else t.model_dump(exclude_none=True)
            for loc, t in (data.pop("translations", None) or {}).items()
        }
        for key in [k for k in data if isinstance(k, str)]:
            found = _TRANSLATION_KEY.match(key)
            if found and key not in cls.model_fields:
                field, locale = found.groups()
                translations.setdefault(locale, {})[field] = data.pop(key)
        data["translations"] = translations
        return data

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise ValueError(
                "expected slash-separated segments of letters, digits, '.', '_', '+' or '-'"
                " (e.g. 'llm/vllm-block-manager-out-of-memory')"
            )
        return value

    @field_validator("regex")
    @classmethod
    def _regex_compiles(cls, value: str, info: ValidationInfo) -> str:
        if info.context and info.context.get("stored"):
            return value
        problem = regex_problem(value)
        if problem is not None:
            raise ValueError(problem)
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
            raise ValueError("expected a locale code such as 'en', 'zh' or 'pt_br'")
        return value

    @model_validator(mode="after")
    def _translations_fit(self) -> Record:
        for locale, text in self.translations.items():
            if not LOCALE_PATTERN.match(locale):
                raise ValueError(f"translation locale {locale!r} is not a locale code")
            for field in TRANSLATABLE_LIST:
                items = getattr(text, field)
                if items is not None and len(items) > len(getattr(self, field)):
                    raise ValueError(
                        f"{field}_{locale} has {len(items)} entries but {field} has only "
                        f"{len(getattr(self, field))}: entry i translates {field}[i]"
                    )
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
            field = _TRANSLATIONS_AFTER.get(key, key)
            if field in TRANSLATABLE:
                for locale in sorted(translations):
                    value = translations[locale].get(field)
                    if value is not None:
                        out[f"{field}_{locale}"] = value
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

    def text(self, field: str, locale: str) -> tuple[Any, str]:
        """A translatable field in ``locale``, falling back to the record's own text.

        Returns ``(value, locale_used)``; list fields fall back item by item, and
        ``locale_used`` is the requested locale only when every item was found.
        """
        locale = normalise_locale(locale)
        base = getattr(self, field)
        if field in TRANSLATABLE_LIST:
            base = [item.text if isinstance(item, DeadEnd) else item.action for item in base]
        candidates = [locale, locale.split("_")[0]]
        for loc in dict.fromkeys(candidates):
            if loc == self.locale:
                return base, loc
            translated = self.translations.get(loc)
            value = getattr(translated, field) if translated else None
            if value is None:
                continue
            if field in TRANSLATABLE_LIST:
                merged = [
                    value[i] if i < len(value) and value[i] else b for i, b in enumerate(base)
                ]
                full = len(value) >= len(base) and all(value[: len(base)])
                return merged, loc if full else self.locale
            return value, loc
        return base, self.locale


def validation_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """``(field_path, message)`` pairs from a pydantic error, paths like ``workarounds[0].success_rate``."""
    problems = []
    for err in exc.errors(include_url=False):
        path = ""
        for part in err["loc"]:
            if isinstance(part, int):
                path += f"[{part}]"
            elif part in ("str", "Link", "function-after[_has_text(), DeadEnd]"):
                continue
            else:
                path += f".{part}" if path else str(part)
        message = err["msg"]
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        problems.append((path or "(record)", message))
    return problems
